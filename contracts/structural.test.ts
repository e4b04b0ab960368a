import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cp, startCpHarness } from "@/server/http/control-plane/test-support";
import type { CpHarness } from "@/server/http/control-plane/test-support";
import { ScriptedWorker } from "@/server/http/test-support";
import { encodePayload } from "@/server/codec/codec";
import { realFixture } from "./fixtures/load";
import type { RealEndpoint } from "./fixtures/load";
import { shapeDifferences, shapeOf } from "./shape";

/**
 * The embedded server against the current real shapes. It drives, over HTTP, the scenario the
 * fixtures in contracts/fixtures/2026-08 describe (NOTES.md): run `order-42` on queue `orders`, whose
 * activity `payments.charge` fails attempt 1 with a retry, fails attempt 2 for good, and whose worker
 * then fails the run. It compares describe, debug, a history page and the export with the fixtures
 * by shape — key names, JSON types, null-ability — never by value, and fails on every difference
 * not in {@link ACCEPTED}.
 */

/** Paths whose content is the caller's data or a deployment's fleet: only their JSON type is compared. */
const OPAQUE = [
  "$.memo",
  "$.search_attributes",
  "$.input",
  "$.output",
  "$.workflow.memo",
  "$.workflow.search_attributes",
  "$.workflow.visibility_labels",
  "$.summary.search_attributes",
  "$.summary.visibility_labels",
  // debug: the queue's pollers, budgets and the namespace fleet depend on the deployment's workers.
  "$.task_queue",
  "$.compatibility",
  "$.control_plane.task_queue",
  "$.control_plane.compatibility",
];

/**
 * Differences that are accepted because the real value depends on the deployment, not on the
 * contract. Each is `<endpoint> <path>: <what>` as {@link shapeDifferences} prints it. Keep minimal.
 */
const ACCEPTED: readonly string[] = [];

const RUN_SCENARIO_QUEUE = "orders";
const RETRY_POLICY = { max_attempts: 2, backoff_seconds: [2], non_retryable_error_types: ["App\\Errors\\CardDeclined"] };

interface Answers {
  runId: string;
  notes: string[];
  bodies: Partial<Record<RealEndpoint, unknown>>;
}

async function driveScenario(h: CpHarness): Promise<Answers> {
  const notes: string[] = [];
  const worker = new ScriptedWorker(h.url, "worker-a", RUN_SCENARIO_QUEUE);
  expect((await worker.register()).status).toBeLessThan(300);

  const start = {
    workflow_id: "order-42",
    workflow_type: "orders.process",
    task_queue: RUN_SCENARIO_QUEUE,
    input: ["alice"],
    business_key: "order-42",
    // The real start endpoint validates memo only as `array`: a JSON list is accepted.
    memo: ["priority", "vip"],
    search_attributes: { region: "eu" },
  };
  let started = await cp(h.url, "/workflows", { body: start });
  if (started.status >= 300) {
    notes.push(`start POST /api/workflows: a JSON-list memo is refused with ${started.status} (the real server accepts it)`);
    started = await cp(h.url, "/workflows", { body: { ...start, memo: { priority: "vip" } } });
  }
  expect(started.status).toBeLessThan(300);
  const runId = String(started.body.run_id);

  const first = await worker.mustPollWorkflow();
  // Real Avro (C3 01 single-object framing, the Value schema's fingerprint), as a real worker sends:
  // the manifest's avro_framing / avro_prefix_hex / fingerprint are read from the payload's own bytes.
  const schedule = { type: "schedule_activity", activity_type: "payments.charge", arguments: encodePayload(["alice"]), retry_policy: RETRY_POLICY };
  expect((await worker.completeWorkflow(first, [schedule])).status).toBe(200);

  const attempt1 = await worker.mustPollActivity();
  expect((await worker.failActivity(attempt1, { message: "card processor timed out", type: "CardProcessorTimeout", code: 504 })).status).toBe(200);
  h.advance(2);
  const attempt2 = await worker.mustPollActivity();
  expect((await worker.failActivity(attempt2, { message: "card processor unavailable", type: "CardProcessorTimeout", code: 503 })).status).toBe(200);

  const resume = await worker.mustPollWorkflow();
  const fail = { type: "fail_workflow", message: "charge failed", exception_type: "ChargeFailed" };
  expect((await worker.completeWorkflow(resume, [fail])).status).toBe(200);

  const run = `/workflows/order-42/runs/${encodeURIComponent(runId)}`;
  const read = async (path: string) => {
    const answer = await cp(h.url, path);
    expect(answer.status, `${path} answered ${answer.status}: ${answer.raw.slice(0, 200)}`).toBe(200);
    return JSON.parse(answer.raw) as unknown;
  };
  return {
    runId,
    notes,
    bodies: {
      describe: await read("/workflows/order-42"),
      debug: await read("/workflows/order-42/debug"),
      "history-page": await read(`${run}/history?page_size=6`),
      "history-export": await read(`${run}/history/export`),
    },
  };
}

describe("embedded server vs the current real shapes (contracts/fixtures/2026-08)", () => {
  let h: CpHarness;
  let answers: Answers;

  beforeAll(async () => {
    h = await startCpHarness();
    answers = await driveScenario(h);
  });
  afterAll(async () => h?.close());

  const compared: RealEndpoint[] = ["describe", "debug", "history-page", "history-export"];

  it.each(compared)("%s: same keys, JSON types and null-ability", (endpoint) => {
    const differences = shapeDifferences(shapeOf(realFixture("2026-08", endpoint)), shapeOf(answers.bodies[endpoint]), { opaque: OPAQUE })
      .map((difference) => `${endpoint} ${difference}`)
      .filter((difference) => !ACCEPTED.includes(difference));
    expect(differences).toEqual([]);
  });

  it("accepts what the real server accepts when the scenario is driven", () => {
    expect(answers.notes).toEqual([]);
  });
});
