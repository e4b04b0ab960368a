import { NextRequest } from "next/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { systemClock } from "@/server/clock";
import { ScriptedWorker, startEmbeddedServer, tokenAuth } from "@/server/http/test-support";
import type { EmbeddedServer } from "@/server/http/test-support";

/** The worker-removal handler against the real embedded server: guarded, validated, the server's answers relayed. */

const CONSOLE = "http://console.test:3000";
let server: EmbeddedServer;
let POST: (request: NextRequest) => Promise<Response>;

beforeAll(async () => {
  server = await startEmbeddedServer({
    clock: systemClock,
    auth: tokenAuth({ DW_ADMIN_TOKEN: "adm-token", DW_WORKER_TOKEN: "wrk-token" }),
  });
  process.env.DW_SERVER_URL = server.url;
  process.env.DW_TOKEN = "adm-token";
  ({ POST } = await import("@/app/api/actions/workers/route"));
});

afterAll(async () => {
  await server.close();
});

function removal(body: unknown, headers: Record<string, string> = { origin: CONSOLE }): NextRequest {
  return new NextRequest(`${CONSOLE}/api/actions/workers`, {
    method: "POST",
    headers: {
      host: "console.test:3000",
      "x-breakwater-host": "console.test:3000",
      "x-namespace": "default",
      "content-type": "application/json",
      ...headers,
    },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

describe("POST /api/actions/workers", () => {
  it("refuses a cross-origin request, a body that is not JSON, and an op or id it does not know", async () => {
    expect((await POST(removal({ op: "remove", workerId: "w" }, { origin: "http://evil.test" }))).status).toBe(403);
    expect((await POST(removal("{"))).status).toBe(400);
    for (const body of [{ op: "drain", workerId: "w" }, { op: "remove", workerId: "" }, { op: "remove" }]) {
      const answer = await POST(removal(body));
      expect(answer.status).toBe(400);
      expect(await answer.json()).toMatchObject({ reason: "invalid_request" });
    }
  });

  it("removes a registered worker through the server, and relays its 404 for one that is gone", async () => {
    const worker = new ScriptedWorker(server.url, "dead-console-worker", "console-q", "wrk-token");
    expect((await worker.register()).status).toBe(201);
    const removed = await POST(removal({ op: "remove", workerId: "dead-console-worker" }));
    expect(removed.status).toBe(200);
    expect(await removed.json()).toEqual({
      kind: "accepted",
      httpStatus: 200,
      body: { worker_id: "dead-console-worker", outcome: "deregistered", recovered_workflow_task_count: 0 },
    });
    const again = await POST(removal({ op: "remove", workerId: "dead-console-worker" }));
    expect(again.status).toBe(404);
    expect(await again.json()).toEqual({
      kind: "rejected",
      httpStatus: 404,
      reason: "worker_not_found",
      message: "Worker [dead-console-worker] not found in namespace [default].",
    });
  });
});
