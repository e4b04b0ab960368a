import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AddressInfo } from "node:net";
import { NextRequest } from "next/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { systemClock } from "@/server/clock";
import { loseTransport } from "@/server/demo/faults";
import { createEngine } from "@/server/engine";
import { buildApp } from "@/server/http/app";
import { authConfigFromEnv } from "@/server/http/auth";
import { openDb } from "@/server/store/db";
import type { Db } from "@/server/store/db";

/** The maintenance-pass handler against the real embedded server, with a run whose task was lost. */

const CONSOLE = "http://console.test:3000";
let dir: string;
let db: Db;
let app: ReturnType<typeof buildApp>;
let dwUrl: string;
let POST: (request: NextRequest, context: { params: Promise<{ pass: string }> }) => Promise<Response>;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "bw-pass-"));
  db = openDb(join(dir, "dw.sqlite"), systemClock);
  const engine = createEngine({ db, clock: systemClock });
  app = buildApp({
    db,
    clock: systemClock,
    engine,
    auth: authConfigFromEnv({ ...process.env, DW_ADMIN_TOKEN: "adm-token", DW_AUTH_DRIVER: "token" }),
  });
  await app.listen({ host: "127.0.0.1", port: 0 });
  dwUrl = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  process.env.DW_SERVER_URL = dwUrl;
  process.env.DW_TOKEN = "adm-token";
  ({ POST } = await import("@/app/api/actions/system/[pass]/route"));
});

afterAll(async () => {
  await app.close();
  db.close();
  rmSync(dir, { recursive: true, force: true });
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
    expect((await POST(...passRequest("retention-pass"))).status).toBe(404);
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
    expect(loseTransport(db, runId)).toBe(1);

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
  });
});
