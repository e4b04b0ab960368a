import type { NextRequest } from "next/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EmbeddedServer } from "@/server/http/test-support";
import {
  CONSOLE,
  DW_ADMIN_HEADERS,
  consoleRequest,
  startActionServer,
} from "@/app/api/actions/_shared/route-test-support";

/** The rollout handler against the real embedded server: guarded, validated, and the server's answers relayed. */

let server: EmbeddedServer;
let POST: (request: NextRequest) => Promise<Response>;

beforeAll(async () => {
  server = await startActionServer({ DW_WORKER_TOKEN: "wk-token" });
  ({ POST } = await import("@/app/api/actions/build-ids/route"));
  for (const [id, build] of [
    ["w-new", "2026.12.2"],
    ["w-old", "2026.11.4"],
  ])
    await fetch(`${server.url}/api/worker/register`, {
      method: "POST",
      headers: {
        authorization: "Bearer wk-token",
        "content-type": "application/json",
        "x-durable-workflow-protocol-version": "1.19",
      },
      body: JSON.stringify({ worker_id: id, task_queue: "orders", runtime: "python", build_id: build }),
    });
});

afterAll(async () => {
  await server.close();
});

function rollout(body: unknown, headers: Record<string, string> = { origin: CONSOLE }): NextRequest {
  return consoleRequest("/api/actions/build-ids", body, headers);
}

async function cohorts(): Promise<Record<string, unknown>[]> {
  const res = await fetch(`${server.url}/api/task-queues/orders/build-ids`, { headers: DW_ADMIN_HEADERS });
  return ((await res.json()) as { build_ids: Record<string, unknown>[] }).build_ids;
}

describe("POST /api/actions/build-ids", () => {
  it("refuses a cross-origin request, a body that is not JSON, and a change the server would refuse", async () => {
    const ok = { action: "drain", taskQueue: "orders", buildId: "2026.11.4" };
    expect((await POST(rollout(ok, { origin: "http://evil.test" }))).status).toBe(403);
    expect((await POST(rollout("{"))).status).toBe(400);
    for (const body of [
      { action: "rollback", taskQueue: "orders", buildId: "v1" },
      { action: "drain", taskQueue: "", buildId: "v1" },
      { action: "drain", taskQueue: "orders", buildId: "x".repeat(256) },
      { action: "drain", taskQueue: "orders" },
    ]) {
      const answer = await POST(rollout(body));
      expect(answer.status).toBe(400);
      expect(await answer.json()).toMatchObject({ reason: "invalid_request" });
    }
  });

  it("drains, promotes and resumes through the server, and relays promote's refusal in its words", async () => {
    const drained = await POST(rollout({ action: "drain", taskQueue: "orders", buildId: "2026.11.4" }));
    expect(drained.status).toBe(200);
    expect(await drained.json()).toMatchObject({
      kind: "accepted",
      body: { build_id: "2026.11.4", drain_intent: "draining" },
    });
    const refused = await POST(rollout({ action: "promote", taskQueue: "orders", buildId: "2026.11.4" }));
    expect(refused.status).toBe(409);
    expect(await refused.json()).toEqual({
      kind: "rejected",
      httpStatus: 409,
      reason: "fleet_is_draining",
      message: "Deployment default/orders@2026.11.4 is draining; resume it before promoting.",
    });
    const unknown = await POST(rollout({ action: "promote", taskQueue: "orders", buildId: "2027.1.0" }));
    expect(await unknown.json()).toMatchObject({ kind: "rejected", reason: "unknown_deployment" });

    const promoted = await POST(rollout({ action: "promote", taskQueue: "orders", buildId: "2026.12.2" }));
    expect(await promoted.json()).toMatchObject({ kind: "accepted", body: { new_start_selected: true } });
    const resumed = await POST(rollout({ action: "resume", taskQueue: "orders", buildId: "2026.11.4" }));
    expect(await resumed.json()).toMatchObject({ kind: "accepted", body: { drain_intent: "active" } });
    // Both active: the server orders them by newest heartbeat, so compare by build id.
    const read = (await cohorts()).map((c) => [c.build_id, c.drain_intent, c.new_start_selected]);
    expect(read.sort()).toEqual([
      ["2026.11.4", "active", false],
      ["2026.12.2", "active", true],
    ]);
  });
});
