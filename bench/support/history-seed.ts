import { FakeClock, isoMicros } from "../../server/clock";
import { createEngine } from "../../server/engine";
import { newId } from "../../server/ids";
import { encodeBlob } from "../../server/codec/codec";
import type { Db } from "../../server/store/db";

/**
 * One run with a long history, written into the embedded server's SQLite file for the run-detail
 * bench. The engine starts the run (instance, run, summary, WorkflowStarted, first workflow task)
 * and terminates it at the end (WorkflowTerminated, the failure row, the final summary); in
 * between, activity cycles are written straight through the store in the shapes the engine records
 * them — the engine itself would need one workflow task per activity, and replaying a history
 * that long per task takes hours. Cycles: plain (scheduled → started → completed), retried
 * (… → retry scheduled → started → completed), heartbeating, and every 32nd cycle exhausting
 * three attempts (→ ActivityFailed and a workflow_failures row, as the exceptions table reads).
 */

export interface SeededRun {
  workflowId: string;
  runId: string;
  events: number;
  failures: number;
}

const ACTIVITY_TYPES = ["ChargeCard", "ReserveStock", "NotifyCustomer", "SyncLedger"];
const STEP_MS = 400;

export function seedLongRun(db: Db, workflowId: string, targetEvents: number): SeededRun {
  const started = Date.now() - (targetEvents + 100) * STEP_MS;
  const clock = new FakeClock(started);
  const engine = createEngine({ db, clock });
  const start = engine.startWorkflow({
    namespace: "default",
    workflow_id: workflowId,
    workflow_type: "LedgerReplayWorkflow",
    task_queue: "bench",
    business_key: `bench-${targetEvents}`,
    input: { codec: "avro", blob: encodeBlob([{ events: targetEvents }]) },
  });
  const runId = start.run_id;
  if (runId === null)
    throw new Error(`could not start ${workflowId}: ${start.rejection_reason ?? start.command_status}`);

  const retryPolicy = { max_attempts: 3, backoff_seconds: [1, 5], non_retryable_error_types: [] as string[] };
  const insEvent = db.prepare(
    "INSERT INTO workflow_history_events (id, workflow_run_id, sequence, event_type, payload, recorded_at, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
  );
  const insActivity = db.prepare(
    `INSERT INTO activity_executions (id, workflow_run_id, sequence, activity_class, activity_type, status, payload_codec, arguments, result, exception, queue,
       attempt_count, current_attempt_id, retry_policy, started_at, closed_at, last_heartbeat_at, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, 'avro', ?, ?, ?, 'bench', ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const insAttempt = db.prepare(
    `INSERT INTO activity_attempts (id, workflow_run_id, activity_execution_id, attempt_number, status, lease_owner, started_at, last_heartbeat_at, closed_at, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, 'bench-worker', ?, ?, ?, ?, ?)`,
  );
  const insFailure = db.prepare(
    `INSERT INTO workflow_failures (id, workflow_run_id, source_kind, source_id, propagation_kind, failure_category, non_retryable, handled, exception_class, exception_type, message, trace_preview, created_at, updated_at)
     VALUES (?, ?, 'activity_execution', ?, 'activity', 'activity', 0, 1, ?, ?, ?, ?, ?, ?)`,
  );

  let sequence = (
    db.prepare("SELECT last_history_sequence AS s FROM workflow_runs WHERE id = ?").get(runId) as { s: number }
  ).s;
  let t = started + STEP_MS;
  let failures = 0;
  const args = encodeBlob([{ batch: 0 }]);
  const result = encodeBlob({ ok: true });

  db.transaction(() => {
    for (let cycle = 0; ; cycle++) {
      // The engine's terminate appends two more events (TerminateRequested, WorkflowTerminated);
      // the last cycle heartbeats as often as it takes to land on the target exactly.
      const remaining = targetEvents - 2 - sequence;
      if (remaining < 3) break;
      const activityType = ACTIVITY_TYPES[cycle % ACTIVITY_TYPES.length];
      const activityId = newId(t);
      const last = remaining < 10;
      const kind = last
        ? "heartbeat"
        : cycle % 32 === 7
          ? "exhausted"
          : cycle % 8 === 1 || cycle % 8 === 5
            ? "retried"
            : cycle % 8 === 3
              ? "heartbeat"
              : "plain";
      const beats = last ? remaining - 3 : 2;
      const attempts = kind === "exhausted" ? 3 : kind === "retried" ? 2 : 1;
      const createdAt = t;
      const snapshot = (status: string, attemptId: string | null): Record<string, unknown> => ({
        id: activityId,
        idempotency_key: activityId,
        sequence: cycle + 1,
        type: activityType,
        class: activityType,
        attempt_id: attemptId,
        status,
        payload_codec: "avro",
        retry_policy: retryPolicy,
        queue: "bench",
        created_at: isoMicros(createdAt),
        arguments: args,
      });
      const event = (type: string, payload: Record<string, unknown>): void => {
        sequence += 1;
        insEvent.run(newId(t), runId, sequence, type, JSON.stringify(payload), t, t, t);
        t += STEP_MS;
      };
      const common = {
        activity_execution_id: activityId,
        activity_class: activityType,
        activity_type: activityType,
        sequence: cycle + 1,
      };
      event("ActivityScheduled", { ...common, activity: snapshot("pending", null) });
      let lastAttemptId = "";
      for (let n = 1; n <= attempts; n++) {
        const attemptId = newId(t);
        lastAttemptId = attemptId;
        const attemptStarted = t;
        event("ActivityStarted", {
          ...common,
          activity_attempt_id: attemptId,
          attempt_number: n,
          lease_expires_at: isoMicros(t + 300_000),
          activity: snapshot("running", attemptId),
          activity_attempt: {
            id: attemptId,
            attempt_number: n,
            status: "running",
            lease_owner: "bench-worker",
            started_at: isoMicros(t),
          },
        });
        if (kind === "heartbeat") {
          for (let h = 0; h < beats; h++)
            event("ActivityHeartbeatRecorded", {
              ...common,
              activity_attempt_id: attemptId,
              attempt_number: n,
              heartbeat_at: isoMicros(t),
              progress: { done: h + 1, of: beats },
            });
        }
        const failed = n < attempts || kind === "exhausted";
        const message =
          kind === "exhausted" ? "Ledger service rejected the batch (HTTP 409)." : "Connection reset by peer.";
        const exceptionType = kind === "exhausted" ? "LedgerConflict" : "ConnectionReset";
        insAttempt.run(
          attemptId,
          runId,
          activityId,
          n,
          failed ? "failed" : "completed",
          attemptStarted,
          kind === "heartbeat" ? t : null,
          t,
          attemptStarted,
          t,
        );
        if (failed && n < attempts) {
          const backoffSeconds = retryPolicy.backoff_seconds[n - 1];
          if (backoffSeconds === undefined) throw new Error(`no backoff for attempt ${n}`);
          event("ActivityRetryScheduled", {
            ...common,
            activity_attempt_id: attemptId,
            retry_after_attempt_id: attemptId,
            retry_after_attempt: n,
            retry_available_at: isoMicros(t + backoffSeconds * 1000),
            retry_backoff_seconds: backoffSeconds,
            retry_reason: "failure",
            max_attempts: 3,
            retry_policy: retryPolicy,
            exception_type: exceptionType,
            exception_class: exceptionType,
            message,
            code: 0,
          });
        } else if (failed) {
          const failureId = newId(t);
          failures += 1;
          insFailure.run(
            failureId,
            runId,
            activityId,
            exceptionType,
            exceptionType,
            message,
            `${exceptionType}: ${message}\n    at LedgerClient.post (ledger.ts:88)\n    at SyncLedger.handle (activities.ts:41)`,
            t,
            t,
          );
          event("ActivityFailed", {
            ...common,
            activity_attempt_id: attemptId,
            attempt_number: n,
            failure_id: failureId,
            failure_category: "activity",
            non_retryable: false,
            exception_type: exceptionType,
            exception_class: exceptionType,
            message,
            code: 0,
            exception: { type: exceptionType, message, code: 0 },
            activity: snapshot("failed", attemptId),
          });
        } else {
          event("ActivityCompleted", {
            ...common,
            activity_attempt_id: attemptId,
            attempt_number: n,
            result,
            payload_codec: "avro",
            activity: snapshot("completed", attemptId),
          });
        }
      }
      const status = kind === "exhausted" ? "failed" : "completed";
      insActivity.run(
        activityId,
        runId,
        cycle + 1,
        activityType,
        activityType,
        status,
        args,
        status === "completed" ? result : null,
        status === "failed"
          ? JSON.stringify({
              type: "LedgerConflict",
              message: "Ledger service rejected the batch (HTTP 409).",
              code: 0,
            })
          : null,
        attempts,
        lastAttemptId,
        JSON.stringify(retryPolicy),
        createdAt,
        t,
        kind === "heartbeat" ? t : null,
        createdAt,
        t,
      );
    }
    db.prepare(
      "UPDATE workflow_runs SET last_history_sequence = ?, last_progress_at = ?, updated_at = ? WHERE id = ?",
    ).run(sequence, t, t, runId);
  })();

  clock.set(t);
  const closed = engine.terminateWorkflow({
    namespace: "default",
    workflow_id: workflowId,
    reason: "bench: history budget exceeded",
  });
  if (closed.command_status !== "accepted")
    throw new Error(`could not terminate ${workflowId}: ${closed.rejection_reason ?? closed.command_status}`);
  const events = (
    db.prepare("SELECT COUNT(*) AS n FROM workflow_history_events WHERE workflow_run_id = ?").get(runId) as {
      n: number;
    }
  ).n;
  return { workflowId, runId, events, failures };
}
