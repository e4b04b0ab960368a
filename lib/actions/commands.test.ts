import { describe, expect, it } from "vitest";
import type { DwCommandClient } from "@/lib/dw/commands";
import type { RunActionName, RunActionRequest } from "./contract";
import { parseRunActionRequest, RUN_ACTION_COMMANDS, runActionRequestSchema, sendRunCommand } from "./commands";

/** The server half of every run action's descriptor: its request schema and the server call it makes. */

const target = { workflowId: "order-42", runId: "run-1", requestId: "bw-12345678" };

const VALID: { readonly [A in RunActionName]: Extract<RunActionRequest, { action: A }> } = {
  repair: { action: "repair", ...target },
  requestCancellation: { action: "requestCancellation", ...target, cleanupTimeoutSeconds: 60, reason: "maintenance" },
  cancel: { action: "cancel", ...target, reason: "customer asked" },
  terminate: { action: "terminate", ...target, reason: "stuck for a week" },
  archive: { action: "archive", ...target, reason: "done" },
  signal: { action: "signal", ...target, signalName: "approve", input: ["yes", 42, { by: "ada" }] },
  startAgain: { action: "startAgain", ...target, newWorkflowId: "order-42-again" },
};

/** Each action's own fields, each with values its schema must refuse. */
const INVALID: { readonly [A in RunActionName]: Record<string, unknown[]> } = {
  repair: {},
  requestCancellation: { cleanupTimeoutSeconds: [undefined, 0, 3601, 1.5, "60", null], reason: [7, "x".repeat(1001)] },
  cancel: { reason: [undefined, "", "   ", 7, "x".repeat(1001)] },
  terminate: { reason: [undefined, "", "\n\t", null, "x".repeat(1001)] },
  archive: { reason: [7, "x".repeat(1001)] },
  signal: {
    signalName: [undefined, "", "  ", 1, "s".repeat(257)],
    input: [undefined, {}, "[]", null, [JSON.parse("[".repeat(200) + "]".repeat(200))]],
  },
  startAgain: {
    newWorkflowId: [undefined, "", "bad id", "a/b", "../etc", "<script>", "id\u0000", "ü", "x".repeat(129)],
  },
};

const ACTIONS = Object.keys(VALID) as RunActionName[];

describe.each(ACTIONS)("%s request schema", (action) => {
  it("accepts the valid request as it is", () => {
    expect(parseRunActionRequest(VALID[action])).toEqual({ ok: true, request: VALID[action] });
    expect(RUN_ACTION_COMMANDS[action].schema.safeParse(VALID[action]).success).toBe(true);
  });

  it("refuses each bad target field, naming it", () => {
    const bad: Record<string, unknown[]> = {
      workflowId: [undefined, "", "w".repeat(256), 42],
      runId: [undefined, "", "r".repeat(256)],
      requestId: [undefined, "short", "q".repeat(256)],
    };
    for (const [field, values] of Object.entries(bad))
      for (const value of values) {
        const parsed = parseRunActionRequest({ ...VALID[action], [field]: value });
        expect(parsed, `${field}=${String(value).slice(0, 20)}`).toMatchObject({ ok: false });
        if (!parsed.ok) expect(parsed.message.startsWith(`${field}:`)).toBe(true);
      }
  });

  it("refuses each bad value of its own fields", () => {
    for (const [field, values] of Object.entries(INVALID[action]))
      for (const value of values) {
        const parsed = parseRunActionRequest({ ...VALID[action], [field]: value });
        expect(parsed.ok, `${field}=${JSON.stringify(value)?.slice(0, 30)}`).toBe(false);
      }
  });

  it("takes hostile strings as data: ids and words are passed on untouched, never interpreted", () => {
    const hostile = "<img src=x onerror=alert(1)>'; DROP TABLE runs;--%2F../\u202e";
    const parsed = runActionRequestSchema.safeParse({ ...VALID[action], workflowId: hostile, runId: hostile });
    expect(parsed.success).toBe(true);
    if (parsed.success) expect(parsed.data).toMatchObject({ workflowId: hostile, runId: hostile });
  });

  it("refuses a huge body field without trying to use it", () => {
    const huge = "x".repeat(1_000_000);
    expect(parseRunActionRequest({ ...VALID[action], workflowId: huge }).ok).toBe(false);
  });

  it("drops fields the action does not have", () => {
    const parsed = parseRunActionRequest({ ...VALID[action], token: "secret" });
    expect(parsed).toEqual({ ok: true, request: VALID[action] });
  });
});

describe("the request union", () => {
  it("refuses an unknown action, a missing action and a body that is not an object", () => {
    for (const body of [{ ...target, action: "delete" }, target, null, [], "repair"])
      expect(parseRunActionRequest(body).ok).toBe(false);
  });

  it("trims the free-text fields it accepts", () => {
    const parsed = parseRunActionRequest({ ...VALID.cancel, reason: "  why  " });
    expect(parsed.ok && parsed.request.action === "cancel" && parsed.request.reason).toBe("why");
  });

  it("takes a huge but shallow signal input (the server's body limit decides its size)", () => {
    const input = Array.from({ length: 100_000 }, (_, n) => ({ n }));
    expect(parseRunActionRequest({ ...VALID.signal, input }).ok).toBe(true);
  });
});

/** A DwCommandClient that records the calls the descriptors make and answers as the server would. */
function recordingClient(currentRunId = "run-1") {
  const calls: [string, ...unknown[]][] = [];
  const accepted = (extra: Record<string, unknown> = {}) => ({
    kind: "accepted" as const,
    httpStatus: 200,
    body: { workflow_id: "order-42", run_id: "run-1", command_id: "cmd-1", outcome: "applied", ...extra },
  });
  const record =
    (name: string, answer: unknown) =>
    async (...args: unknown[]) => {
      calls.push([name, ...args]);
      return answer;
    };
  const client = {
    describeWorkflow: record("describeWorkflow", { run_id: currentRunId }),
    describeRun: record("describeRun", {
      workflow_type: "Order",
      task_queue: "orders",
      input_envelope: { codec: "avro", blob: "AAA" },
      business_key: "bk-1",
      execution_timeout_seconds: 60,
      run_timeout_seconds: null,
    }),
    repairWorkflow: record("repairWorkflow", accepted()),
    cancelWorkflow: record("cancelWorkflow", accepted()),
    terminateWorkflow: record("terminateWorkflow", accepted()),
    archiveWorkflow: record("archiveWorkflow", accepted()),
    signalWorkflow: record("signalWorkflow", accepted()),
    startWorkflow: record("startWorkflow", {
      kind: "accepted",
      httpStatus: 201,
      body: { workflow_id: "order-42-again", run_id: "run-new", outcome: "started_new" },
    }),
  };
  return { client: client as unknown as DwCommandClient, calls };
}

describe("the server call each request becomes", () => {
  it("repair and archive check the current run first, then command the instance", async () => {
    const { client, calls } = recordingClient();
    await sendRunCommand(client, VALID.repair);
    await sendRunCommand(client, { ...VALID.archive, reason: "" });
    expect(calls).toEqual([
      ["describeWorkflow", "order-42"],
      ["repairWorkflow", "order-42", { requestId: "bw-12345678" }],
      ["describeWorkflow", "order-42"],
      ["archiveWorkflow", "order-42", { requestId: "bw-12345678", reason: undefined }],
    ]);
  });

  it("repair and archive from a historical run are refused by the console, with nothing sent", async () => {
    const { client, calls } = recordingClient("run-2");
    for (const request of [VALID.repair, VALID.archive]) {
      expect(await sendRunCommand(client, request)).toMatchObject({
        result: "rejected",
        httpStatus: 409,
        runId: "run-2",
        rejectionReason: "selected_run_not_current",
      });
    }
    expect(calls.map(([name]) => name)).toEqual(["describeWorkflow", "describeWorkflow"]);
  });

  it("cancel, terminate and signal target the selected run with the request id", async () => {
    const { client, calls } = recordingClient();
    await sendRunCommand(client, VALID.cancel);
    await sendRunCommand(client, VALID.terminate);
    const answer = await sendRunCommand(client, VALID.signal);
    expect(calls).toEqual([
      ["cancelWorkflow", "order-42", { runId: "run-1", requestId: "bw-12345678", reason: "customer asked" }],
      ["terminateWorkflow", "order-42", { runId: "run-1", requestId: "bw-12345678", reason: "stuck for a week" }],
      [
        "signalWorkflow",
        "order-42",
        "approve",
        { runId: "run-1", requestId: "bw-12345678", input: VALID.signal.input },
      ],
    ]);
    expect(answer).toEqual({
      result: "accepted",
      httpStatus: 200,
      action: "signal",
      workflowId: "order-42",
      runId: "run-1",
      commandId: "cmd-1",
      outcome: "applied",
      rejectionReason: null,
      message: null,
    });
  });

  it("start again starts the new id with the old run's type, queue and exact input, never reusing an id", async () => {
    const { client, calls } = recordingClient();
    const answer = await sendRunCommand(client, VALID.startAgain);
    expect(calls).toEqual([
      ["describeRun", "order-42", "run-1"],
      [
        "startWorkflow",
        {
          workflow_type: "Order",
          workflow_id: "order-42-again",
          task_queue: "orders",
          input: { codec: "avro", blob: "AAA" },
          business_key: "bk-1",
          execution_timeout_seconds: 60,
          run_timeout_seconds: undefined,
          duplicate_policy: "fail",
        },
      ],
    ]);
    expect(answer).toMatchObject({ result: "accepted", action: "startAgain", runId: "run-new", commandId: null });
  });

  it("relays a rejection as an answer with the server's reason", async () => {
    const { client } = recordingClient();
    (client as unknown as Record<string, unknown>).cancelWorkflow = async () => ({
      kind: "rejected",
      httpStatus: 409,
      body: { workflow_id: "order-42", outcome: "rejected_closed", rejection_reason: "run_closed", message: "closed" },
    });
    expect(await sendRunCommand(client, VALID.cancel)).toMatchObject({
      result: "rejected",
      httpStatus: 409,
      rejectionReason: "run_closed",
      message: "closed",
    });
  });
});
