import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { authConfigFromEnv } from "../auth";
import { cp, startCpHarness } from "./test-support";
import type { CpHarness } from "./test-support";

/**
 * Who sent a command, as the real server records it (durable-workflow/server
 * tests/Feature/WorkflowCommandAttributionTest.php@11d35b7, WorkflowCommandContextFactory.php): the
 * forwarded caller and auth headers only when DW_TRUST_FORWARDED_ATTRIBUTION_HEADERS is on, else the
 * server's own identity; the token's role and principal; the X-Request-Id / X-Correlation-Id
 * headers. Read back from the export's commands, the history events' command snapshots and the
 * timeline (HistoryExport.php / WorkflowHistoryEvent.php / HistoryTimeline.php @8dc90d64).
 */
// The real shape, read as data: server/ imports no console code.
const fixture = JSON.parse(
  readFileSync(join(__dirname, "../../../lib/dw/fixtures/command-attribution-export.json"), "utf8"),
) as { commands: Record<string, unknown>[] };
const TOKENS = { DW_AUTH_DRIVER: "token", DW_OPERATOR_TOKEN: "op-token", DW_ADMIN_TOKEN: "admin-token" };
const FORWARDED = {
  "X-Workflow-Caller-Type": "user",
  "X-Workflow-Caller-Label": "Ada Operator",
  "X-Workflow-Auth-Status": "authorized",
  "X-Workflow-Auth-Method": "breakwater_password",
  "X-Request-Id": "cancel-request-1",
  "X-Correlation-Id": "correlation-1",
};

async function cancelledBundle(h: CpHarness, workflowId: string, token: string) {
  const started = await cp(h.url, "/workflows", {
    token,
    body: { workflow_id: workflowId, workflow_type: "orders", task_queue: "attr" },
  });
  expect(started.status).toBe(201);
  const cancelled = await cp(h.url, `/workflows/${workflowId}/cancel`, {
    token,
    headers: FORWARDED,
    body: { reason: "customer asked" },
  });
  expect(cancelled.status).toBe(200);
  const runId = encodeURIComponent(String(started.body.run_id));
  const answer = await cp(h.url, `/workflows/${workflowId}/runs/${runId}/history/export`, { token });
  expect(answer.status).toBe(200);
  const bundle = JSON.parse(answer.raw) as {
    commands: Record<string, unknown>[];
    history_events: { type: string; payload: { command?: Record<string, unknown> } }[];
    timeline: { type: string; command: Record<string, unknown> | null }[];
  };
  const storedContext = h.db
    .prepare("SELECT context FROM workflow_commands WHERE workflow_instance_id = ? AND command_type = 'cancel'")
    .get(workflowId) as { context: string };
  return { bundle, context: JSON.parse(storedContext.context) as Record<string, Record<string, unknown>> };
}

describe("command attribution with trusted forwarded headers", () => {
  let h: CpHarness;
  beforeAll(async () => {
    h = await startCpHarness({
      auth: authConfigFromEnv({ ...process.env, ...TOKENS, DW_TRUST_FORWARDED_ATTRIBUTION_HEADERS: "true" }),
    });
  });
  afterAll(async () => h?.close());

  it("records the forwarded caller and auth, the token's role and principal, and the request ids", async () => {
    const { bundle, context } = await cancelledBundle(h, "attr-trusted", "op-token");
    expect(context.caller).toEqual({ type: "user", label: "Ada Operator" });
    expect(context.auth).toEqual({
      status: "authorized",
      method: "breakwater_password",
      role: "operator",
      roles: ["operator"],
      principal: { subject: "role:operator", roles: ["operator"] },
    });
    expect(context.request).toMatchObject({
      method: "POST",
      path: "/api/workflows/attr-trusted/cancel",
      request_id: "cancel-request-1",
      correlation_id: "correlation-1",
    });

    const cancel = bundle.commands.find((c) => c.type === "cancel");
    expect(cancel).toMatchObject({
      caller_label: "Ada Operator",
      auth_status: "authorized",
      auth_method: "breakwater_password",
      // No `request_id` in the body: the accessor falls back to the X-Request-Id the context kept.
      request_id: "cancel-request-1",
      correlation_id: "correlation-1",
      principal_label: null,
      reason: "customer asked",
    });
    // Every key the real HistoryExport::command writes (lib/dw/fixtures/command-attribution-export.md).
    expect(Object.keys(cancel ?? {}).sort()).toEqual(Object.keys(fixture.commands[0]!).sort());
    const event = bundle.history_events.find((e) => e.type === "CancelRequested");
    expect(event?.payload.command).toMatchObject({
      caller_label: "Ada Operator",
      auth_status: "authorized",
      auth_method: "breakwater_password",
      correlation_id: "correlation-1",
    });
    const line = bundle.timeline.find((e) => e.type === "CancelRequested");
    expect(line?.command).toMatchObject({ caller_label: "Ada Operator", auth_method: "breakwater_password" });
  });

  it("a signal's SignalReceived carries its command snapshot with the forwarded caller", async () => {
    const started = await cp(h.url, "/workflows", {
      token: "op-token",
      body: { workflow_id: "attr-signal", workflow_type: "orders", task_queue: "attr" },
    });
    expect(started.status).toBe(201);
    const signalled = await cp(h.url, "/workflows/attr-signal/signal/go", {
      token: "op-token",
      headers: FORWARDED,
      body: { input: [] },
    });
    expect(signalled.status).toBe(202);
    const runId = encodeURIComponent(String(started.body.run_id));
    const page = await cp(h.url, `/workflows/attr-signal/runs/${runId}/history`, { token: "op-token" });
    const events = page.body.events as unknown as { event_type: string; payload: { command?: unknown } }[];
    expect(events.find((e) => e.event_type === "SignalReceived")?.payload.command).toMatchObject({
      type: "signal",
      caller_label: "Ada Operator",
      auth_method: "breakwater_password",
    });
  });

  it("a request without the headers is the server's own caller", async () => {
    const started = await cp(h.url, "/workflows", {
      token: "admin-token",
      body: { workflow_id: "attr-plain", workflow_type: "orders", task_queue: "attr" },
    });
    expect(started.status).toBe(201);
    const row = h.db
      .prepare("SELECT context FROM workflow_commands WHERE workflow_instance_id = 'attr-plain'")
      .get() as { context: string };
    expect(JSON.parse(row.context)).toMatchObject({
      caller: { type: "server", label: "Standalone Server" },
      auth: { status: "authorized", method: "token", role: "admin", principal: { subject: "role:admin" } },
    });
  });
});

describe("command attribution without trust (the real server's default)", () => {
  let h: CpHarness;
  beforeAll(async () => {
    h = await startCpHarness({
      auth: authConfigFromEnv({
        ...process.env,
        ...TOKENS,
        DW_AUTH_TOKEN: "legacy-token-secret",
        DW_TRUST_FORWARDED_ATTRIBUTION_HEADERS: "false",
      }),
    });
  });
  afterAll(async () => h?.close());

  it("ignores forwarded caller and auth headers: Standalone Server, token", async () => {
    const { bundle, context } = await cancelledBundle(h, "attr-spoofed", "op-token");
    expect(context.caller).toEqual({ type: "server", label: "Standalone Server" });
    expect(context.auth).toMatchObject({ status: "authorized", method: "token", role: "operator" });
    expect(bundle.commands.find((c) => c.type === "cancel")).toMatchObject({
      caller_label: "Standalone Server",
      auth_status: "authorized",
      auth_method: "token",
      // The request ids are not attribution headers: always kept.
      correlation_id: "correlation-1",
    });
  });

  it("names the legacy shared token as the real server does", async () => {
    const { context } = await cancelledBundle(h, "attr-legacy", "legacy-token-secret");
    expect(context.auth).toEqual({
      status: "authorized",
      method: "token",
      role: "admin",
      roles: ["admin"],
      principal: { subject: "legacy-token", roles: ["admin"], claims: { legacy_credential: true } },
    });
  });
});

describe("command attribution with auth off", () => {
  let h: CpHarness;
  beforeAll(async () => {
    h = await startCpHarness();
  });
  afterAll(async () => h?.close());

  it("records anonymous, not_configured and none", async () => {
    const started = await cp(h.url, "/workflows", {
      body: { workflow_id: "attr-open", workflow_type: "orders", task_queue: "attr" },
    });
    expect(started.status).toBe(201);
    const row = h.db
      .prepare("SELECT context FROM workflow_commands WHERE workflow_instance_id = 'attr-open'")
      .get() as { context: string };
    expect(JSON.parse(row.context)).toMatchObject({
      caller: { type: "server", label: "Standalone Server" },
      auth: {
        status: "not_configured",
        method: "none",
        role: "admin",
        principal: { subject: "anonymous", roles: ["admin"], legacy_full_access: true },
      },
    });
  });
});
