import { NextRequest } from "next/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { systemClock } from "@/server/clock";
import { startEmbeddedServer, tokenAuth } from "@/server/http/test-support";
import type { EmbeddedServer } from "@/server/http/test-support";
import { loseTransport } from "@/server/demo/faults";

/** The maintenance-pass handler against the real embedded server, with a run whose task was lost. */

const CONSOLE = "http://console.test:3000";
let server: EmbeddedServer;
let dwUrl: string;
let POST: (request: NextRequest, context: { params: Promise<{ pass: string }> }) => Promise<Response>;

beforeAll(async () => {
  server = await startEmbeddedServer({ clock: systemClock, auth: tokenAuth({ DW_ADMIN_TOKEN: "adm-token" }) });
  dwUrl = server.url;
  process.env.DW_SERVER_URL = dwUrl;
  process.env.DW_TOKEN = "adm-token";
  ({ POST } = await import("@/app/api/actions/system/[pass]/route"));
});

afterAll(async () => {
  await server.close();
});

function passRequest(
  pass: string,
  headers: Record<string, string> = { origin: CONSOLE },
): [NextRequest, { params: Promise<{ pass: string }> }] {
  const request = new NextRequest(`${CONSOLE}/api/actions/system/${pass}`, {
    method: "POST",
    headers: {
      host: "console.test:3000",
      "x-breakwater-host": "console.test:3000",
      "x-namespace": "default",
      ...headers,
    },
    body: "",
  });
  return [request, { params: Promise.resolve({ pass }) }];
}

describe("POST /api/actions/system/{pass}", () => {
  it("refuses cross-origin requests and unknown passes", async () => {
    expect((await POST(...passRequest("repair-pass", { origin: "http://evil.test" }))).status).toBe(403);
    expect((await POST(...passRequest("archive-pass"))).status).toBe(404);
  });

  it("refuses a pass that names no namespace", async () => {
    const answer = await POST(...passRequest("repair-pass", { origin: CONSOLE, "x-namespace": "" }));
    expect(answer.status).toBe(400);
    expect(await answer.json()).toMatchObject({ reason: "namespace_required" });
  });

  it("runs the repair pass and relays the report: the lost task is recreated", async () => {
    const response = await fetch(`${dwUrl}/api/workflows`, {
      method: "POST",
      headers: {
        authorization: "Bearer adm-token",
        "content-type": "application/json",
        "x-durable-workflow-control-plane-version": "2",
      },
      body: JSON.stringify({ workflow_type: "PassTest", workflow_id: "wf-pass", task_queue: "q", input: [] }),
    });
    const { run_id: runId } = (await response.json()) as { run_id: string };
    expect(loseTransport(server.db, runId)).toBe(1);

    const answer = await POST(...passRequest("repair-pass"));
    expect(answer.status).toBe(200);
    const body = await answer.json();
    expect(body).toMatchObject({
      httpStatus: 200,
      partial: false,
      report: { repaired_missing_tasks: 1, missing_run_failures: [] },
    });

    const timeouts = await POST(...passRequest("activity-timeout-pass"));
    expect(timeouts.status).toBe(200);
    expect((await timeouts.json()).report).toMatchObject({ processed: 0, failed: 0 });

    // Retention acts in the tab's namespace; nothing there closed long enough ago to expire.
    const retention = await POST(...passRequest("retention-pass"));
    expect(retention.status).toBe(200);
    expect((await retention.json()).report).toEqual({ processed: 0, pruned: 0, skipped: 0, failed: 0, results: [] });
  });
});
