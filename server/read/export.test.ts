import { createHash, createHmac } from "node:crypto";
import { readFileSync } from "node:fs";
import { request } from "node:http";
import { setImmediate as nextTurn } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { gunzipSync, inflateRawSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { seedLongRun } from "../../bench/support/history-seed";
import { FakeClock } from "../clock";
import { createEngine } from "../engine";
import { openDb } from "../store/db";
import type { CpHarness, JsonTree } from "../http/control-plane/test-support";
import { cp, list, startCpHarness } from "../http/control-plane/test-support";
import { blob, ScriptedWorker } from "../http/test-support";
import { canonicalJson } from "./canonical-json";
import type { RunRef } from "./export";
import { exportRun, exportRunSliced } from "./export";

const CONTRACTS = fileURLToPath(new URL("../../contracts", import.meta.url));

function contract(name: string): Record<string, unknown> {
  return JSON.parse(readFileSync(`${CONTRACTS}/${name}`, "utf8")) as Record<string, unknown>;
}

/** An independent json-recursive-ksort-v1 encoder, so the checksum is not checked against itself. */
function referenceCanonical(value: unknown): string {
  const sortDeep = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(sortDeep);
    if (v && typeof v === "object") {
      return Object.fromEntries(
        Object.keys(v as Record<string, unknown>)
          .sort()
          .map((k) => [k, sortDeep((v as Record<string, unknown>)[k])]),
      );
    }
    return v;
  };
  // Every non-ASCII UTF-16 unit (both halves of a surrogate pair) as a lower-case escape.
  return JSON.stringify(sortDeep(value)).replace(
    /[\u0080-\uffff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

/** `HistoryTimeline::mapEvent`'s keys (durable-workflow/workflow@8dc90d6 src/V2/Support/HistoryTimeline.php). */
const REAL_TIMELINE_KEYS = [
  "id",
  "sequence",
  "type",
  "kind",
  "entry_kind",
  "source_kind",
  "source_id",
  "summary",
  "recorded_at",
  "command_id",
  "command_sequence",
  "requested_run_id",
  "resolved_run_id",
  "task_id",
  "command_type",
  "command_status",
  "command_outcome",
  "command_rejection_reason",
  "workflow_sequence",
  "signal_id",
  "signal_wait_id",
  "condition_wait_id",
  "condition_key",
  "condition_definition_fingerprint",
  "signal_name",
  "update_name",
  "version_change_id",
  "version",
  "version_min_supported",
  "version_max_supported",
  "activity_execution_id",
  "activity_type",
  "activity_class",
  "activity_status",
  "retry_task_id",
  "retry_available_at",
  "retry_backoff_seconds",
  "retry_max_attempts",
  "retry_policy",
  "retry_after_attempt_id",
  "retry_after_attempt",
  "timer_id",
  "delay_seconds",
  "child_call_id",
  "child_workflow_instance_id",
  "child_workflow_run_id",
  "child_workflow_type",
  "child_workflow_class",
  "child_status",
  "parallel_group_kind",
  "parallel_group_id",
  "parallel_group_base_sequence",
  "parallel_group_size",
  "parallel_group_index",
  "parallel_group_path",
  "failure_id",
  "exception_type",
  "exception_class",
  "exception_resolved_class",
  "exception_resolution_source",
  "exception_resolution_error",
  "message",
  "closed_reason",
  "command",
  "task",
  "activity",
  "timer",
  "child",
  "failure",
];
/** `HistoryTimeline::failureMetadata`'s keys, all present (nulls included) whenever the object is built. */
const REAL_FAILURE_KEYS = [
  "id",
  "source_kind",
  "source_id",
  "propagation_kind",
  "failure_category",
  "non_retryable",
  "handled",
  "exception_type",
  "exception_class",
  "exception_resolved_class",
  "exception_resolution_source",
  "exception_resolution_error",
  "exception_replay_blocked",
  "message",
  "file",
  "line",
];
/** `HistoryExport::summary`'s keys (HistoryExport.php@8dc90d6): no repair_blocked_reason. */
const REAL_SUMMARY_KEYS = [
  "status",
  "status_bucket",
  "closed_reason",
  "archived_at",
  "archive_command_id",
  "archive_reason",
  "business_key",
  "visibility_labels",
  "search_attributes",
  "is_current_run",
  "started_at",
  "closed_at",
  "duration_ms",
  "wait_kind",
  "wait_reason",
  "wait_started_at",
  "wait_deadline_at",
  "open_wait_id",
  "resume_source_kind",
  "resume_source_id",
  "next_task_at",
  "next_task_id",
  "next_task_type",
  "next_task_status",
  "next_task_lease_expires_at",
  "liveness_state",
  "liveness_reason",
  "repair_attention",
  "task_problem",
  "task_problem_badge",
  "exception_count",
  "history_event_count",
  "history_size_bytes",
  "history_fan_out",
  "continue_as_new_recommended",
  "history_budget_pressure",
  "sort_timestamp",
  "sort_key",
];

describe("history export and debug of a run with a retried then non-retryable activity", () => {
  let h: CpHarness;
  let runId: string;
  let bundle: JsonTree;
  const workflowId = "export-ü-1";

  beforeAll(async () => {
    h = await startCpHarness();
    const w = new ScriptedWorker(h.url, "export-worker");
    await w.register();
    h.engine.startWorkflow({
      namespace: "default",
      workflow_id: workflowId,
      workflow_type: "orders.process",
      task_queue: "default",
      business_key: "ordér",
    });
    const t1 = await w.mustPollWorkflow();
    runId = t1.run_id;
    await w.completeWorkflow(t1, [
      {
        type: "schedule_activity",
        activity_type: "orders.charge",
        arguments: blob([42]),
        retry_policy: { max_attempts: 3, backoff_seconds: [5], non_retryable_error_types: ["CardDeclined"] },
      },
    ]);
    const a1 = await w.mustPollActivity();
    await w.failActivity(a1, { message: "gateway timeout", type: "GatewayTimeout" });
    h.clock.advance(5_000);
    h.engine.sweep();
    const a2 = await w.mustPollActivity();
    expect(a2.attempt_number).toBe(2);
    await w.failActivity(a2, { message: "card declined", type: "CardDeclined" });
    const t2 = await w.mustPollWorkflow();
    await w.completeWorkflow(t2, [{ type: "fail_workflow", message: "charge failed", exception_type: "CardDeclined" }]);
    const r = await cp(h.url, `/workflows/${encodeURIComponent(workflowId)}/runs/${runId}/history/export`);
    expect(r.status).toBe(200);
    expect(r.headers.get("x-durable-workflow-control-plane-version")).toBe("2");
    bundle = r.body;
  });

  afterAll(async () => {
    await h.close();
  });

  test("the bundle validates against history-export-bundle.schema.json", () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats.default(ajv);
    const payloads = contract("history-event-payloads.schema.json");
    ajv.addSchema({ ...payloads, $id: "history-event-payloads.schema.json" });
    const validate = ajv.compile(contract("history-export-bundle.schema.json"));
    const ok = validate(bundle);
    expect(validate.errors ?? []).toEqual([]);
    expect(ok).toBe(true);
  });

  test("integrity.checksum is sha256 of the canonical bundle without integrity", () => {
    const { integrity, ...rest } = bundle as Record<string, unknown>;
    const i = integrity as Record<string, unknown>;
    expect(i.canonicalization).toBe("json-recursive-ksort-v1");
    expect(i.checksum_algorithm).toBe("sha256");
    expect(i.signature).toBeNull();
    const reference = referenceCanonical(rest);
    expect(canonicalJson(rest)).toBe(reference);
    expect(reference).toContain("export-\\u00fc-1");
    expect(i.checksum).toBe(createHash("sha256").update(reference).digest("hex"));
  });

  test("activities carry both attempts; failures, timeline and tasks tell the retry story", () => {
    expect(bundle.schema).toBe("durable-workflow.v2.history-export");
    expect(bundle.history_complete).toBe(true);
    expect(bundle.workflow?.instance_id).toBe(workflowId);
    expect(bundle.workflow?.status).toBe("failed");
    expect(String(bundle.dedupe_key).startsWith(`${runId}:`)).toBe(true);
    const activity = list(bundle.activities)[0];
    expect(activity?.status).toBe("failed");
    expect(activity?.attempt_count).toBe(2);
    expect(activity?.retry_policy?.max_attempts).toBe(3);
    expect(list(activity?.attempts).map((a) => [a.attempt_number, a.status])).toEqual([
      [1, "failed"],
      [2, "failed"],
    ]);
    expect(list(activity?.history_event_types)).toEqual(
      expect.arrayContaining(["ActivityScheduled", "ActivityStarted", "ActivityRetryScheduled", "ActivityFailed"]),
    );
    const failures = list(bundle.failures);
    expect(failures.map((f) => [f.source_kind, f.propagation_kind, f.failure_category, f.non_retryable])).toEqual([
      ["activity_execution", "activity", "activity", true],
      ["workflow_run", "terminal", "application", false],
    ]);
    expect(failures[0]?.history_authority).toBe("typed_history");
    const retry = list(bundle.timeline).find((e) => String(e.type) === "ActivityRetryScheduled");
    expect(retry?.summary).toBe("Scheduled retry 2 for orders.charge.");
    expect(retry?.kind).toBe("activity");
    expect(retry?.retry_after_attempt).toBe(1);
    // HistoryTimeline.php@8dc90d6 failureMetadata: a retry has no failure row, so id, handled, source and propagation are null.
    expect(retry?.failure).toMatchObject({
      id: null,
      handled: null,
      source_kind: null,
      source_id: null,
      propagation_kind: null,
      failure_category: null,
      non_retryable: false,
      message: "gateway timeout",
      exception_type: "GatewayTimeout",
    });
    // No top-level attempt or timeout keys on real timeline entries: they stay in the event payload.
    for (const e of list(bundle.timeline))
      for (const k of ["activity_attempt_id", "attempt_number", "timeout_kind"]) expect(e).not.toHaveProperty(k);
    const failed = list(bundle.timeline).find((e) => String(e.type) === "ActivityFailed");
    expect(failed?.summary).toBe("Failed orders.charge: card declined.");
    expect(failed?.failure?.non_retryable).toBe(true);
    expect(failed?.failure?.failure_category).toBe("activity");
    expect(list(bundle.timeline)).toHaveLength(list(bundle.history_events).length);
    // Every entry has every key, nulls included, as HistoryTimeline::mapEvent writes it (decision 0014).
    for (const e of list(bundle.timeline)) expect(Object.keys(e).sort()).toEqual([...REAL_TIMELINE_KEYS].sort());
    expect(list(bundle.tasks).length).toBeGreaterThanOrEqual(4);
    expect(list(bundle.commands).map((c) => c.type)).toEqual(["start"]);
    expect(bundle.summary?.liveness_state).toBe("closed");
    expect(bundle.summary?.exception_count).toBe(2);
    expect(bundle.payloads?.arguments?.available).toBe(false);
    // Encoding follows the codec; the JSON bytes this scripted worker labels avro are not a single-object frame.
    expect(
      list(bundle.payload_manifest?.entries).find((e) => String(e.path) === "activities.0.arguments"),
    ).toMatchObject({
      codec: "avro",
      available: true,
      encoding: "base64-avro-single-object",
      avro_framing: null,
      avro_prefix_hex: "5b34",
      writer_schema: null,
      writer_schema_fingerprint: null,
      diagnostic: "invalid_single_object_magic",
    });
    expect(
      list(bundle.payload_manifest?.entries).find((e) => String(e.path) === "payloads.arguments.data"),
    ).toMatchObject({ available: false, diagnostic: "payload_unavailable" });
    expect(bundle.summary).not.toHaveProperty("repair_blocked_reason");
    expect(bundle.summary).toMatchObject({ history_fan_out: expect.any(Number), history_budget_pressure: "ok" });
    expect(list(bundle.failures)[0]).not.toHaveProperty("event_sequence");
    expect(bundle.payloads?.output).toMatchObject({ available: false, codec: null });
  });

  test("timeline entries, their failure objects and the summary use the current engine's field names", () => {
    for (const e of list(bundle.timeline)) {
      expect(Object.keys(e).filter((k) => !REAL_TIMELINE_KEYS.includes(k))).toEqual([]);
      if (e.failure) expect(Object.keys(e.failure).sort()).toEqual([...REAL_FAILURE_KEYS].sort());
    }
    expect(Object.keys(bundle.summary ?? {}).sort()).toEqual([...REAL_SUMMARY_KEYS].sort());
    expect(
      list(bundle.timeline)
        .filter((e) => e.failure)
        .map((e) => [String(e.type), e.failure?.handled]),
    ).toEqual([
      ["ActivityRetryScheduled", null],
      ["ActivityFailed", false],
      ["WorkflowFailed", false],
    ]);
  });

  test("debug of the closed run: terminal, recent failures newest first", async () => {
    const r = await cp(h.url, `/workflows/${encodeURIComponent(workflowId)}/runs/${runId}/debug`);
    expect(r.status).toBe(200);
    expect(r.body.diagnostic_status).toBe("terminal");
    expect(r.body.control_plane?.operation).toBe("debug_workflow");
    expect(r.body.control_plane?.diagnostic_status).toBe("terminal");
    expect(r.body.execution?.liveness_state).toBe("closed");
    expect(list(r.body.recent_failures).map((f) => f.propagation_kind)).toEqual(["terminal", "activity"]);
    expect(r.body.recent_failures?.[1]?.non_retryable).toBe(true);
    expect(list(r.body.pending_workflow_tasks)).toHaveLength(0);
  });
});

/** One GET with a chosen Accept-Encoding, body as sent (fetch would decode it). */
function rawGet(
  url: string,
  acceptEncoding: string,
): Promise<{ status: number; encoding: string | undefined; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { headers: { "accept-encoding": acceptEncoding, "x-durable-workflow-control-plane-version": "2" } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            encoding: res.headers["content-encoding"],
            body: Buffer.concat(chunks),
          }),
        );
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end();
  });
}

/** First differing offset of two long texts, so a mismatch reports where instead of dumping 50 MB. */
function firstDifference(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a.charCodeAt(i) !== b.charCodeAt(i)) return i;
  return a.length === b.length ? -1 : n;
}

/** Seeding and exporting 20,000 events takes seconds, more on a busy machine; nothing here is timed. */
const HEAVY = { timeout: 120_000 };

describe("export of a 20,000-event run: built in slices, streamed, compressed off the event loop", () => {
  let h: CpHarness;
  let ref: RunRef;
  let url: string;
  /** The bundle as the synchronous builder gives it: every read and the checksum in one go on the engine's connection. */
  let reference: string;
  let identity: Buffer;

  beforeAll(async () => {
    h = await startCpHarness();
    const seeded = seedLongRun(h.db, "export-big", 20_000);
    expect(seeded.events).toBe(20_000);
    ref = { namespace: "default", workflowId: seeded.workflowId, runId: seeded.runId };
    url = `${h.url}/api/workflows/${seeded.workflowId}/runs/${seeded.runId}/history/export`;
    reference = JSON.stringify(exportRun(h.db, ref, h.clock.now(), null));
  }, HEAVY.timeout);

  afterAll(async () => {
    await h.close();
  });

  test(
    "a health check sent while the export is being built is answered before the export's response starts",
    HEAVY,
    async () => {
      const arrived = new Promise<void>((resolve) => {
        h.app.server.on("request", (req: { url?: string }) => {
          if (req.url?.includes("/history/export")) resolve();
        });
      });
      const order: string[] = [];
      const exported = fetch(url, { headers: { "x-durable-workflow-control-plane-version": "2" } }).then(
        async (res) => {
          order.push("export headers");
          const body = await res.arrayBuffer();
          order.push("export body");
          return { status: res.status, bytes: body.byteLength };
        },
      );
      // Only once the server has the export request: a check sent earlier could be served first anyway.
      await arrived;
      const health = fetch(`${h.url}/api/health`).then(async (res) => {
        await res.text();
        order.push("health");
        return res.status;
      });
      expect(await health).toBe(200);
      const e = await exported;
      expect(e.status).toBe(200);
      expect(e.bytes).toBe(Buffer.byteLength(reference));
      expect(order).toEqual(["health", "export headers", "export body"]);
    },
  );

  test(
    "the streamed bundle is byte for byte what the synchronous builder gives, and its checksum is right",
    HEAVY,
    async () => {
      const r = await rawGet(url, "identity");
      expect(r.status).toBe(200);
      expect(r.encoding).toBeUndefined();
      identity = r.body;
      const text = identity.toString("utf8");
      expect(firstDifference(text, reference)).toBe(-1);
      const { integrity, ...rest } = JSON.parse(text) as Record<string, unknown>;
      const i = integrity as Record<string, unknown>;
      expect(list((rest as JsonTree).history_events)).toHaveLength(20_000);
      expect(i.checksum).toBe(createHash("sha256").update(referenceCanonical(rest)).digest("hex"));
    },
  );

  test("the gzip body decodes to the identity bytes", HEAVY, async () => {
    expect(identity).toBeDefined();
    const gz = await rawGet(url, "gzip");
    expect(gz.encoding).toBe("gzip");
    expect(gz.body.length).toBeLessThan(identity.length / 4);
    expect(gunzipSync(gz.body).equals(identity)).toBe(true);
  });
  test("a large JSON answer that is not streamed (a 1,000-event history page) is compressed asynchronously to the same bytes", async () => {
    const page = `${h.url}/api/workflows/${ref.workflowId}/runs/${ref.runId}/history?page_size=1000`;
    const plain = await rawGet(page, "identity");
    expect(plain.status).toBe(200);
    expect(plain.body.length).toBeGreaterThan(64 * 1024);
    const gz = await rawGet(page, "gzip");
    expect(gz.encoding).toBe("gzip");
    expect(gunzipSync(gz.body).equals(plain.body)).toBe(true);
    const df = await rawGet(page, "deflate");
    expect(df.encoding).toBe("deflate");
    expect(inflateRawSync(df.body).equals(plain.body)).toBe(true);
  });
});

describe("export of a run that keeps changing: snapshot and signing", () => {
  let h: CpHarness;
  let ref: RunRef;

  beforeAll(async () => {
    h = await startCpHarness();
    const w = new ScriptedWorker(h.url, "snapshot-worker");
    await w.register();
    h.engine.startWorkflow({
      namespace: "default",
      workflow_id: "export-live",
      workflow_type: "fanout",
      task_queue: "default",
    });
    const t1 = await w.mustPollWorkflow();
    const schedule = Array.from({ length: 1500 }, (_, i) => ({
      type: "schedule_activity",
      activity_type: `step.${i % 7}`,
      arguments: blob([i]),
    }));
    expect((await w.completeWorkflow(t1, schedule)).status).toBe(200);
    ref = { namespace: "default", workflowId: "export-live", runId: t1.run_id };
  });

  afterAll(async () => {
    await h.close();
  });

  test(
    "events, tasks and commands committed during the build are not in the bundle, not even in part",
    HEAVY,
    async () => {
      const lastSequence = (): number =>
        (
          h.db.prepare("SELECT last_history_sequence AS s FROM workflow_runs WHERE id = ?").get(ref.runId) as {
            s: number;
          }
        ).s;
      const sequenceBefore = lastSequence();
      const before = JSON.stringify(exportRun(h.db, ref, h.clock.now(), null));

      // The snapshot is taken before exportRunSliced returns; every signal below commits after it.
      let built = false;
      const pending = exportRunSliced(h.db, ref, h.clock.now(), null).then((b) => {
        built = true;
        return b;
      });
      let signalledWhileBuilding = 0;
      while (!built) {
        const r = h.engine.signalWorkflow({ namespace: "default", workflow_id: "export-live", signal_name: "poke" });
        expect(r.command_status).toBe("accepted");
        signalledWhileBuilding += 1;
        await nextTurn();
      }
      const bundle = await pending;

      expect(signalledWhileBuilding).toBeGreaterThan(1);
      expect(lastSequence()).toBeGreaterThan(sequenceBefore);
      const workflow = bundle.workflow as Record<string, unknown>;
      expect(workflow.last_history_sequence).toBe(sequenceBefore);
      expect((bundle.history_events as unknown[]).length).toBe(sequenceBefore);
      expect((bundle.commands as { type: string }[]).filter((c) => c.type === "signal")).toEqual([]);
      expect(firstDifference(JSON.stringify(bundle), before)).toBe(-1);
      // What the build did not see is there for the next export.
      const after = exportRun(h.db, ref, h.clock.now(), null);
      expect((after.commands as { type: string }[]).filter((c) => c.type === "signal")).toHaveLength(
        signalledWhileBuilding,
      );
    },
  );

  test("gzip, deflate and identity bodies of the streamed export carry the same bytes", async () => {
    const url = `${h.url}/api/workflows/export-live/runs/${ref.runId}/history/export`;
    const plain = await rawGet(url, "identity");
    expect(plain.status).toBe(200);
    const gz = await rawGet(url, "gzip");
    expect(gz.encoding).toBe("gzip");
    const df = await rawGet(url, "deflate;q=1, gzip;q=0.5");
    expect(df.encoding).toBe("deflate");
    expect(gunzipSync(gz.body).equals(plain.body)).toBe(true);
    expect(inflateRawSync(df.body).equals(plain.body)).toBe(true);
    expect(JSON.parse(plain.body.toString("utf8")).workflow.run_id).toBe(ref.runId);
  });

  test("with a signing key the sliced build signs the same bytes the synchronous one does", async () => {
    const signing = { key: "export-test-key", keyId: "k1" };
    const sliced = await exportRunSliced(h.db, ref, h.clock.now(), signing);
    const sync = exportRun(h.db, ref, h.clock.now(), signing);
    expect(firstDifference(JSON.stringify(sliced), JSON.stringify(sync))).toBe(-1);
    const { integrity, ...rest } = sliced;
    expect((integrity as Record<string, unknown>).signature).toBe(
      createHmac("sha256", signing.key).update(referenceCanonical(rest)).digest("hex"),
    );
  });
});

test("an in-memory database, which no second connection can see, is exported in one go with the same bytes", async () => {
  const clock = new FakeClock();
  const db = openDb(":memory:", clock);
  try {
    const engine = createEngine({ db, clock });
    const started = engine.startWorkflow({
      namespace: "default",
      workflow_id: "export-memory",
      workflow_type: "in.memory",
      task_queue: "default",
    });
    const ref = { namespace: "default", workflowId: "export-memory", runId: started.run_id as string };
    const sliced = await exportRunSliced(db, ref, clock.now(), null);
    expect((sliced.history_events as unknown[]).length).toBeGreaterThan(0);
    expect(JSON.stringify(sliced)).toBe(JSON.stringify(exportRun(db, ref, clock.now(), null)));
  } finally {
    db.close();
  }
});
