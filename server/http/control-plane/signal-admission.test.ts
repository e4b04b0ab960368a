import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { ScriptedWorker, typesOf } from "../test-support";
import type { CpHarness } from "./test-support";
import { cp, list, startCpHarness } from "./test-support";

/**
 * Signal admission against the run's durable command contract: an external worker declares its
 * handlers at registration (sdk-python@b15778e worker.py `_workflow_command_contract`), a
 * control-plane start copies them into WorkflowStarted (server@205c046 WorkflowStartService), and
 * a signal is refused 404 when undeclared, 422 when its arguments break the contract
 * (workflow@8dc90d6 DefaultWorkflowControlPlane::signalStatus, WorkflowStub signal admission).
 */

/**
 * One declared handler exactly as the Python SDK writes it: the output of durable-workflow 2.12.0
 * `worker._workflow_command_contract` for `@workflow.signal("approve") def approve(self, actor: str,
 * note: str | None = None)`.
 */
const APPROVE = {
  name: "approve",
  parameters: [
    {
      name: "actor",
      position: 0,
      required: true,
      variadic: false,
      default_available: false,
      default: null,
      type: "string",
      allows_null: false,
    },
    {
      name: "note",
      position: 1,
      required: false,
      variadic: false,
      default_available: true,
      default: null,
      type: "string|null",
      allows_null: true,
    },
  ],
};
const CONTRACTS = {
  "orders.approval": {
    queries: [],
    query_contracts: [],
    signals: ["approve"],
    signal_contracts: [APPROVE],
    updates: [],
    update_contracts: [],
    update_validators: [],
  },
};

describe("signals against a declared command contract", () => {
  let h: CpHarness;

  beforeAll(async () => {
    h = await startCpHarness();
    const declaring = new ScriptedWorker(h.url, "declaring-worker", "approvals");
    const reg = await declaring.post("/register", {
      worker_id: declaring.workerId,
      task_queue: "approvals",
      runtime: "python",
      supported_workflow_types: ["orders.approval"],
      workflow_command_contracts: CONTRACTS,
    });
    expect(reg.status).toBeLessThan(300);
    const plain = new ScriptedWorker(h.url, "plain-worker", "plain");
    await plain.register();
    for (const [id, type, queue] of [
      ["approval-1", "orders.approval", "approvals"],
      ["plain-1", "orders.plain", "plain"],
    ]) {
      const started = await cp(h.url, "/workflows", {
        body: { workflow_id: id, workflow_type: type, task_queue: queue },
      });
      expect(started.status).toBe(201);
    }
  });

  afterAll(async () => {
    await h.close();
  });

  const runIdOf = async (id: string): Promise<string> => String((await cp(h.url, `/workflows/${id}`)).body.run_id);

  test("the start records the worker's contract in WorkflowStarted, in the engine's strict form", async () => {
    const runId = await runIdOf("approval-1");
    const started = JSON.parse(
      (
        h.db
          .prepare(
            "SELECT payload FROM workflow_history_events WHERE workflow_run_id = ? AND event_type = 'WorkflowStarted'",
          )
          .get(runId) as { payload: string }
      ).payload,
    ) as Record<string, unknown>;
    expect(started).toMatchObject({
      declared_signals: ["approve"],
      declared_signal_contracts: [APPROVE],
      declared_queries: [],
      declared_updates: [],
      declared_update_validators: [],
      declared_entry_method: "handle",
      declared_entry_mode: "canonical",
      declared_entry_declaring_class: "external:orders.approval",
    });
  });

  test("an undeclared signal is 404 rejected_unknown_signal with the engine's message and diagnostics, and leaves history alone", async () => {
    const runId = await runIdOf("approval-1");
    const before = typesOf(h.db, runId);
    const r = await cp(h.url, "/workflows/approval-1/signal/reject", { body: { input: ["ada"] } });
    expect(r.status).toBe(404);
    expect(r.body).toMatchObject({
      outcome: "rejected_unknown_signal",
      command_status: "rejected",
      reason: "unknown_signal",
      rejection_reason: "unknown_signal",
      signal_name: "reject",
      workflow_id: "approval-1",
      command_contract_source: "durable_history",
      command_contract_backfill_needed: false,
      command_contract_backfill_available: false,
      declared_signals: ["approve"],
      signal_admission: "handler_not_declared",
      message:
        "Workflow signal [reject] is unknown for workflow type [orders.approval]: the durable command contract does not declare that handler. Command contract source [durable_history], declared signals [approve].",
    });
    expect(r.body.control_plane?.operation).toBe("signal");
    expect(typesOf(h.db, runId)).toEqual(before);
  });

  test("arguments that break the declared contract are 422 rejected_invalid_arguments with per-parameter errors", async () => {
    const missing = await cp(h.url, "/workflows/approval-1/signal/approve", { body: { input: [] } });
    expect(missing.status).toBe(422);
    expect(missing.body).toMatchObject({
      outcome: "rejected_invalid_arguments",
      command_status: "rejected",
      reason: "invalid_signal_arguments",
      rejection_reason: "invalid_signal_arguments",
      validation_errors: { actor: ["The actor argument is required."] },
    });
    const wrong = await cp(h.url, "/workflows/approval-1/signal/approve", { body: { input: [42, null, "extra"] } });
    expect(wrong.status).toBe(422);
    expect(wrong.body.validation_errors).toEqual({
      actor: ["The actor argument must be of type string."],
      arguments: ["Too many arguments were provided for signal [approve]."],
    });
    const nullActor = await cp(h.url, "/workflows/approval-1/signal/approve", { body: { input: [null] } });
    expect(nullActor.body.validation_errors).toEqual({ actor: ["The actor argument cannot be null."] });
  });

  test("a declared signal with valid arguments is 202 and reaches history", async () => {
    const r = await cp(h.url, "/workflows/approval-1/signal/approve", { body: { input: ["ada", null] } });
    expect(r.status).toBe(202);
    expect(r.body).toMatchObject({ outcome: "signal_received", command_status: "accepted", validation_errors: [] });
    expect(r.body).not.toHaveProperty("signal_admission");
    expect(typesOf(h.db, await runIdOf("approval-1"))).toContain("SignalReceived");
    const commands = list(
      (await cp(h.url, `/workflows/approval-1/runs/${await runIdOf("approval-1")}/history/export`)).body.commands,
    );
    expect(commands.map((c) => [c.type, c.status, c.outcome])).toEqual([
      ["start", "accepted", "started_new"],
      ["signal", "rejected", "rejected_unknown_signal"],
      ["signal", "rejected", "rejected_invalid_arguments"],
      ["signal", "rejected", "rejected_invalid_arguments"],
      ["signal", "rejected", "rejected_invalid_arguments"],
      ["signal", "accepted", "signal_received"],
    ]);
  });

  test("a run whose worker declared no contract admits any signal name (external_contract_unavailable)", async () => {
    const r = await cp(h.url, "/workflows/plain-1/signal/anything", { body: { input: [1, 2, 3] } });
    expect(r.status).toBe(202);
    expect(r.body.outcome).toBe("signal_received");
  });

  test("an unknown instance stays 404 instance_not_found, a closed run 409", async () => {
    const unknown = await cp(h.url, "/workflows/nobody/signal/approve", { body: {} });
    expect(unknown.status).toBe(404);
    expect(unknown.body.reason).toBe("instance_not_found");
    await cp(h.url, "/workflows/plain-1/terminate", { body: {} });
    const closed = await cp(h.url, "/workflows/plain-1/signal/anything", { body: {} });
    expect(closed.status).toBe(409);
    expect(closed.body.outcome).toBe("rejected_not_active");
  });
});
