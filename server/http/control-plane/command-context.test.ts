import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cp, startCpHarness } from "./test-support";
import type { CpHarness } from "./test-support";

/**
 * What the control plane records about a command's request, and the memo it accepts, as the real
 * server does: `WorkflowCommandContextFactory::requestMetadata` (durable-workflow/server@11d35b7)
 * keeps the method and the path without its query; the start endpoint validates memo only as a
 * PHP `array`, so a JSON list is accepted and comes back a list (`$run->memo ?? []`).
 */
describe("command request metadata and list memos", () => {
  let h: CpHarness;
  beforeAll(async () => {
    h = await startCpHarness();
  });
  afterAll(async () => h?.close());

  async function exportOf(workflowId: string): Promise<Record<string, unknown>> {
    const described = await cp(h.url, `/workflows/${workflowId}`);
    expect(described.status).toBe(200);
    const runId = encodeURIComponent(String(described.body.run_id));
    const answer = await cp(h.url, `/workflows/${workflowId}/runs/${runId}/history/export`);
    expect(answer.status).toBe(200);
    return JSON.parse(answer.raw) as Record<string, unknown>;
  }

  it("a start and a signal record their method and path (no query) in commands[], the timeline and the start events", async () => {
    const started = await cp(h.url, "/workflows?trace=1", {
      body: { workflow_id: "ctx-1", workflow_type: "orders", task_queue: "ctx" },
    });
    expect(started.status).toBe(201);
    expect((await cp(h.url, "/workflows/ctx-1/signal/go", { body: { input: [] } })).status).toBe(202);

    const bundle = await exportOf("ctx-1");
    const commands = bundle.commands as { type: string; request_method: unknown; request_path: unknown }[];
    expect(commands.map((c) => [c.type, c.request_method, c.request_path])).toEqual([
      ["start", "POST", "/api/workflows"],
      ["signal", "POST", "/api/workflows/ctx-1/signal/go"],
    ]);
    const timeline = bundle.timeline as {
      type: string;
      command: { request_method: unknown; request_path: unknown; context: unknown } | null;
    }[];
    const accepted = timeline.find((e) => e.type === "StartAccepted");
    expect(accepted?.command).toMatchObject({ request_method: "POST", request_path: "/api/workflows", context: null });
    const events = bundle.history_events as { type: string; payload: { command?: Record<string, unknown> } }[];
    for (const type of ["StartAccepted", "WorkflowStarted"]) {
      expect(events.find((e) => e.type === type)?.payload.command).toMatchObject({
        type: "start",
        status: "accepted",
        request_method: "POST",
        request_path: "/api/workflows",
      });
    }
  });

  it("a command made without an HTTP request records no request", async () => {
    h.engine.startWorkflow({ namespace: "default", workflow_id: "ctx-2", workflow_type: "orders", task_queue: "ctx" });
    const bundle = await exportOf("ctx-2");
    expect((bundle.commands as Record<string, unknown>[])[0]).toMatchObject({
      request_method: null,
      request_path: null,
    });
  });

  it("a JSON-list memo is accepted and echoed as a list by describe, the export and the start events", async () => {
    const started = await cp(h.url, "/workflows", {
      body: { workflow_id: "ctx-3", workflow_type: "orders", task_queue: "ctx", memo: ["priority", "vip"] },
    });
    expect(started.status).toBe(201);
    expect((await cp(h.url, "/workflows/ctx-3")).body.memo).toEqual(["priority", "vip"]);
    const bundle = await exportOf("ctx-3");
    expect((bundle.workflow as { memo: unknown }).memo).toEqual(["priority", "vip"]);
    const events = bundle.history_events as { type: string; payload: { memo?: unknown } }[];
    expect(
      events.filter((e) => e.type === "StartAccepted" || e.type === "WorkflowStarted").map((e) => e.payload.memo),
    ).toEqual([
      ["priority", "vip"],
      ["priority", "vip"],
    ]);
  });

  it("a memo that is neither a map nor a list is a 422", async () => {
    const refused = await cp(h.url, "/workflows", {
      body: { workflow_id: "ctx-4", workflow_type: "orders", task_queue: "ctx", memo: "vip" },
    });
    expect(refused.status).toBe(422);
    expect(JSON.stringify(refused.body)).toContain("memo");
  });
});
