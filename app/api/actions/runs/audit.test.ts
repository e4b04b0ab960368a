import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import bcrypt from "bcryptjs";
import { NextRequest } from "next/server";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { systemClock } from "@/server/clock";
import { authConfigFromEnv } from "@/server/http/auth";
import { startEmbeddedServer } from "@/server/http/test-support";
import type { EmbeddedServer } from "@/server/http/test-support";

/**
 * Attribution and the audit log through the real action route (decision 0058): the console signed
 * in as `ola` (operator, BREAKWATER_AUTH=password) cancels a run on the real embedded server, which
 * trusts the console's attribution headers; the command's context names ola, and the audit file
 * (BREAKWATER_AUDIT_LOG_FILE) has one JSON line per action, refusals included.
 */

const CONSOLE = "http://console.test:3000";
const dir = mkdtempSync(join(tmpdir(), "bw-audit-"));
const auditFile = join(dir, "audit.jsonl");
let server: EmbeddedServer;
let POST: (request: NextRequest) => Promise<Response>;
/** The request headers `next/headers` gives the DW client: the handler's own request, as in Next. */
let current = new Headers();

vi.mock("next/headers", () => ({ headers: async () => current }));

beforeAll(async () => {
  server = await startEmbeddedServer({
    clock: systemClock,
    auth: authConfigFromEnv({
      ...process.env,
      DW_AUTH_DRIVER: "token",
      DW_OPERATOR_TOKEN: "op-token",
      DW_ADMIN_TOKEN: "adm-token",
      DW_TRUST_FORWARDED_ATTRIBUTION_HEADERS: "true",
    }),
  });
  const usersFile = join(dir, "users.json");
  writeFileSync(
    usersFile,
    JSON.stringify([{ user: "Olá Operator", hash: bcrypt.hashSync("pw", 4), role: "operator" }]),
  );
  Object.assign(process.env, {
    DW_SERVER_URL: server.url,
    DW_OPERATOR_TOKEN: "op-token",
    DW_ADMIN_TOKEN: "adm-token",
    DW_NAMESPACE: "default",
    BREAKWATER_AUTH: "password",
    BREAKWATER_USERS_FILE: usersFile,
    BREAKWATER_SESSION_SECRET: "audit-test-session-secret-0123456789",
    BREAKWATER_AUDIT_LOG_FILE: auditFile,
  });
  delete process.env.DW_TOKEN;
  ({ POST } = await import("@/app/api/actions/runs/route"));
});

afterAll(async () => {
  await server.close();
});

function actionRequest(body: unknown, person: { user: string; role: string } | null): NextRequest {
  const headers: Record<string, string> = {
    host: "console.test:3000",
    "x-breakwater-host": "console.test:3000",
    "x-breakwater-path": "/api/actions/runs",
    origin: CONSOLE,
    "sec-fetch-site": "same-origin",
    "content-type": "application/json",
    "x-namespace": "default",
  };
  if (person) {
    headers["x-breakwater-user"] = encodeURIComponent(person.user);
    headers["x-breakwater-role"] = person.role;
  }
  const request = new NextRequest(`${CONSOLE}/api/actions/runs`, {
    method: "POST",
    headers,
    body: JSON.stringify(body),
  });
  current = new Headers(headers);
  return request;
}

async function start(workflowId: string): Promise<string> {
  const response = await fetch(`${server.url}/api/workflows`, {
    method: "POST",
    headers: {
      authorization: "Bearer adm-token",
      "content-type": "application/json",
      "x-durable-workflow-control-plane-version": "2",
    },
    body: JSON.stringify({ workflow_type: "AuditTest", workflow_id: workflowId, task_queue: "q" }),
  });
  return ((await response.json()) as { run_id: string }).run_id;
}

function auditLines(): Record<string, unknown>[] {
  return readFileSync(auditFile, "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

const OLA = { user: "Olá Operator", role: "operator" };

describe("who did what: attribution and the audit log", () => {
  it("a cancel names the person to the server and writes an accepted audit line", async () => {
    const runId = await start("wf-audit-1");
    const answer = await POST(
      actionRequest(
        { action: "cancel", workflowId: "wf-audit-1", runId, requestId: "req-audit-1", reason: "stop it" },
        OLA,
      ),
    );
    expect(answer.status).toBe(200);

    const row = server.db
      .prepare(
        "SELECT context FROM workflow_commands WHERE workflow_instance_id = 'wf-audit-1' AND command_type = 'cancel'",
      )
      .get() as { context: string };
    const context = JSON.parse(row.context) as Record<string, Record<string, unknown>>;
    expect(context.caller).toEqual({ type: "user", label: "Olá Operator" });
    expect(context.auth).toMatchObject({ status: "authorized", method: "breakwater_password", role: "operator" });

    const line = auditLines().at(-1)!;
    expect(line).toMatchObject({
      msg: "audit",
      event: "breakwater.action",
      person: "Olá Operator",
      role: "operator",
      action: "cancel",
      target: { namespace: "default", workflowId: "wf-audit-1", runId, name: null },
      reason: "stop it",
      outcome: "accepted",
      status: 200,
      refusal: null,
      commandRequestId: "req-audit-1",
    });
    expect(line.commandId).toEqual(expect.any(String));
    // The X-Request-Id the server kept in the command's context: one id joins the two records.
    expect(line.requestId).toBe((context.request as { request_id?: string }).request_id);
    expect(Date.parse(String(line.time))).not.toBeNaN();
  });

  it("a repeat the server rejects is audited as rejected with its status and reason", async () => {
    const runId = await start("wf-audit-2");
    const body = { action: "terminate", workflowId: "wf-audit-2", runId, requestId: "req-audit-2a", reason: "bad" };
    expect((await POST(actionRequest(body, OLA))).status).toBe(200);
    const again = await POST(actionRequest({ ...body, requestId: "req-audit-2b" }, OLA));
    expect(again.status).toBe(409);
    expect(auditLines().at(-1)).toMatchObject({
      person: "Olá Operator",
      action: "terminate",
      outcome: "rejected",
      status: 409,
      refusal: "run_not_active",
      commandRequestId: "req-audit-2b",
    });
  });

  it("a viewer's click is refused by the console and audited as refused, nothing sent", async () => {
    const runId = await start("wf-audit-3");
    const refused = await POST(
      actionRequest(
        { action: "cancel", workflowId: "wf-audit-3", runId, requestId: "req-audit-3", reason: "x" },
        { user: "vic", role: "viewer" },
      ),
    );
    expect(refused.status).toBe(403);
    expect(auditLines().at(-1)).toMatchObject({
      person: "vic",
      role: "viewer",
      action: "/api/actions/runs",
      target: { namespace: "default" },
      outcome: "refused",
      status: 403,
      refusal: "role",
    });
    const cancels = server.db
      .prepare(
        "SELECT COUNT(*) AS n FROM workflow_commands WHERE workflow_instance_id = 'wf-audit-3' AND command_type = 'cancel'",
      )
      .get() as { n: number };
    expect(cancels.n).toBe(0);
  });
});
