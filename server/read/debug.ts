import type { Db } from "../store/db";
import {
  claimFailed,
  dispatchFailed,
  dispatchOverdue,
  leaseExpired,
  parsePayload,
  projectRunSummary,
  repairBackoffSeconds,
  transportState,
} from "../engine/summary";
import type { ActivityRow, AttemptRow, FailureRow, RunRow, TaskRow } from "../engine/rows";
import { isTerminal } from "../engine/rows";
import type { RunSummary } from "../engine/summary";
import { activeWorkers, fleetSummary, queueDetail } from "./fleet";
import { compact, isoMicros, isoOffset, str } from "./format";
import type { Json } from "./format";

const PREVIEW_MAX_BYTES = 4096;

const TASK_PROBLEM_BADGES: Record<string, { label: string; description: string; tone: string }> = {
  replay_blocked: { label: "Task Failure", description: "A workflow task failed and replay is blocked until a compatible build runs it.", tone: "dark" },
  active: { label: "Task Problem", description: "The run's durable task transport currently needs attention.", tone: "warning" },
  history: { label: "Task History", description: "The run needed task repair or replay recovery in the past.", tone: "secondary" },
};

/** `WorkflowTaskProblem` badge: replay_blocked / active / history, or null without a task problem. */
export function taskProblemBadge(s: RunSummary): Json | null {
  if (s.task_problem !== 1) return null;
  let code = "history";
  if (s.liveness_state === "workflow_replay_blocked") code = "replay_blocked";
  else if (
    (s.liveness_state === "repair_needed" && [null, "workflow-task", "update", "signal", "child", "condition"].includes(s.wait_kind)) ||
    s.liveness_state.includes("task_claim_failed") ||
    s.liveness_state.includes("waiting_for_compatible_worker")
  )
    code = "active";
  const b = TASK_PROBLEM_BADGES[code];
  return { code, label: b.label, description: b.description, tone: b.tone, badge_visible: true };
}

/** One task as `RunTaskView` shows it (the debug subset; nulls dropped by the caller). */
export function taskView(t: TaskRow, now: number): Json {
  const p = parsePayload(t.payload);
  return {
    task_id: t.id,
    task_type: t.task_type,
    status: t.status,
    transport_state: transportState(t, now),
    summary: taskSummaryText(t, now),
    queue: t.queue,
    compatibility: t.compatibility,
    available_at: isoMicros(t.available_at),
    leased_at: isoMicros(t.leased_at),
    lease_owner: t.lease_owner,
    lease_expires_at: isoMicros(t.lease_expires_at),
    lease_expired: leaseExpired(t, now),
    attempt_count: t.attempt_count,
    repair_count: t.repair_count,
    repair_backoff_seconds: repairBackoffSeconds(t.repair_count),
    dispatch_failed: dispatchFailed(t),
    dispatch_overdue: dispatchOverdue(t, now),
    claim_failed: claimFailed(t),
    last_error: t.last_error,
    last_dispatch_error: t.last_dispatch_error,
    last_claim_error: t.last_claim_error,
    repair_available_at: isoMicros(t.repair_available_at),
    activity_execution_id: str(p.activity_execution_id),
    timer_id: str(p.timer_id),
    workflow_wait_kind: str(p.workflow_wait_kind),
    workflow_open_wait_id: str(p.open_wait_id),
    workflow_resume_source_kind: str(p.resume_source_kind),
    workflow_resume_source_id: str(p.resume_source_id),
    replay_blocked: p.replay_blocked === true,
    replay_blocked_reason: str(p.replay_blocked_reason),
    task_missing: false,
    synthetic: false,
  };
}

function taskSummaryText(t: TaskRow, now: number): string {
  const label = t.task_type === "activity" ? "Activity" : t.task_type === "timer" ? "Timer" : "Workflow";
  switch (transportState(t, now)) {
    case "leased":
      return `${label} task leased to ${t.lease_owner ?? "a worker"}.`;
    case "lease_expired":
      return `${label} task lease expired at ${isoMicros(t.lease_expires_at)}.`;
    case "scheduled":
      return `${label} task scheduled for ${isoMicros(t.available_at)}.`;
    case "dispatch_failed":
      return `${label} task dispatch failed.`;
    case "dispatch_overdue":
      return `${label} task dispatch is overdue.`;
    case "claim_failed":
      return `${label} task claim failed.`;
    case "repair_backoff":
      return `${label} task is waiting for its repair backoff.`;
    default:
      return `${label} task ready.`;
  }
}

/** The synthetic row the projection shows when a repairable resume source has lost its task. */
function missingTaskRow(run: RunRow, s: RunSummary): Json {
  return {
    task_id: `missing:workflow:${run.id}`,
    task_type: s.wait_kind === "activity" ? "activity" : s.wait_kind === "timer" ? "timer" : "workflow",
    status: "missing",
    transport_state: "missing",
    summary: "Durable task transport is missing.",
    queue: run.queue,
    workflow_wait_kind: s.wait_kind,
    workflow_open_wait_id: s.open_wait_id,
    workflow_resume_source_kind: s.resume_source_kind,
    workflow_resume_source_id: s.resume_source_id,
    task_missing: true,
    synthetic: true,
  };
}

function diagnosticStatus(run: RunRow, s: RunSummary, pendingWork: boolean, backlog: number): string {
  if (isTerminal(run.status)) return "terminal";
  if (s.task_problem === 1 || s.repair_attention === 1 || s.liveness_state === "repair_needed") return "needs_attention";
  if (pendingWork) return "pending_work";
  if (s.wait_kind) return "waiting";
  if (backlog > 0) return "queue_backlog";
  return "running";
}

/**
 * `WorkflowRunDiagnostics::forRun`: a bounded support snapshot (≤ 25 open tasks, ≤ 25 open
 * activities, ≤ 10 recent failures). Liveness is projected at request time so an expired lease
 * shows as `repair_needed` even before the sweep refreshes the stored summary.
 */
export function debugRun(db: Db, run: RunRow, now: number, opts: { includeLastEventPayload: boolean }): Json {
  const s = projectRunSummary(db, run.id, now);
  if (!s) throw new Error(`run ${run.id} vanished`);
  const tasks = db
    .prepare("SELECT * FROM workflow_tasks WHERE workflow_run_id = ? AND status IN ('ready', 'leased') ORDER BY COALESCE(available_at, created_at), created_at, id LIMIT 25")
    .all(run.id) as TaskRow[];
  const pendingTasks: Json[] = tasks.map((t) => compact(taskView(t, now)));
  if (s.liveness_state === "repair_needed" && s.next_task_id === null) pendingTasks.push(compact(missingTaskRow(run, s)));

  const activities = db
    .prepare("SELECT * FROM activity_executions WHERE workflow_run_id = ? AND status IN ('pending', 'running') ORDER BY sequence LIMIT 25")
    .all(run.id) as ActivityRow[];
  const attemptStmt = db.prepare("SELECT * FROM activity_attempts WHERE id = ?");
  const pendingActivities = activities.map((a) => {
    const at = a.current_attempt_id ? (attemptStmt.get(a.current_attempt_id) as AttemptRow | undefined) : undefined;
    return compact({
      activity_execution_id: a.id,
      activity_type: a.activity_type,
      activity_class: a.activity_class,
      status: a.status,
      queue: a.queue,
      attempt_count: a.attempt_count,
      current_attempt_id: a.current_attempt_id,
      started_at: isoMicros(a.started_at),
      last_heartbeat_at: isoMicros(a.last_heartbeat_at),
      schedule_deadline_at: isoMicros(a.schedule_deadline_at),
      close_deadline_at: isoMicros(a.close_deadline_at),
      schedule_to_close_deadline_at: isoMicros(a.schedule_to_close_deadline_at),
      heartbeat_deadline_at: isoMicros(a.heartbeat_deadline_at),
      current_attempt: at
        ? compact({
            activity_attempt_id: at.id,
            attempt_number: at.attempt_number,
            status: at.status,
            lease_owner: at.lease_owner,
            started_at: isoMicros(at.started_at),
            last_heartbeat_at: isoMicros(at.last_heartbeat_at),
            lease_expires_at: isoMicros(at.lease_expires_at),
            lease_expired: at.status === "running" && at.lease_expires_at !== null && at.lease_expires_at <= now,
            closed_at: isoMicros(at.closed_at),
          })
        : null,
    });
  });

  const failures = (
    db.prepare("SELECT * FROM workflow_failures WHERE workflow_run_id = ? ORDER BY created_at DESC, id DESC LIMIT 10").all(run.id) as FailureRow[]
  ).map((f) =>
    compact({
      failure_id: f.id,
      source_kind: f.source_kind,
      source_id: f.source_id,
      propagation_kind: f.propagation_kind,
      failure_category: f.failure_category,
      exception_class: f.exception_class,
      message: f.message,
      non_retryable: f.non_retryable === 1,
      handled: f.handled === 1,
      created_at: isoMicros(f.created_at),
    }),
  );

  const last = db
    .prepare("SELECT sequence, event_type, payload, recorded_at FROM workflow_history_events WHERE workflow_run_id = ? ORDER BY sequence DESC LIMIT 1")
    .get(run.id) as { sequence: number; event_type: string; payload: string | null; recorded_at: number } | undefined;
  let lastEvent: Json | null = null;
  if (last) {
    const text = last.payload ?? "{}";
    const value: unknown = JSON.parse(text);
    const isList = Array.isArray(value);
    const keys = isList ? [] : Object.keys(value as Json);
    const size = Buffer.byteLength(text);
    lastEvent = {
      sequence: last.sequence,
      event_type: last.event_type,
      timestamp: isoMicros(last.recorded_at),
      payload_summary: {
        included: opts.includeLastEventPayload,
        encoding: "json",
        size_bytes: size,
        top_level_type: isList ? "list" : "object",
        top_level_key_count: isList ? (value as unknown[]).length : keys.length,
        top_level_keys: keys.slice(0, 20),
        top_level_keys_truncated: keys.length > 20,
        preview_max_bytes: PREVIEW_MAX_BYTES,
      },
    };
    if (opts.includeLastEventPayload) {
      const truncated = size > PREVIEW_MAX_BYTES;
      lastEvent.payload_preview = {
        encoding: "json",
        size_bytes: size,
        max_bytes: PREVIEW_MAX_BYTES,
        truncated,
        data: truncated ? Buffer.from(text).subarray(0, PREVIEW_MAX_BYTES).toString("utf8") : value,
      };
    }
  }

  const nextTask = s.next_task_id ? tasks.find((t) => t.id === s.next_task_id) : undefined;
  const queue = run.queue ? queueDetail(db, run.namespace, run.queue, now, { withAdmission: false }) : null;
  const backlog = queue ? Number((queue.stats as { approximate_backlog_count: number }).approximate_backlog_count) : 0;
  const status = diagnosticStatus(run, s, pendingTasks.length > 0 || pendingActivities.length > 0, backlog);

  const findings: Json[] = [];
  if (!isTerminal(run.status)) {
    const pollers = run.queue ? activeWorkers(db, run.namespace, now).filter((w) => w.task_queue === run.queue).length : 0;
    if (pendingTasks.length > 0 && pollers === 0)
      findings.push({ severity: "warning", code: "no_active_pollers", message: `No active worker is polling task queue ${run.queue ?? "default"}.` });
    const expired = tasks.filter((t) => leaseExpired(t, now)).length;
    if (expired > 0) findings.push({ severity: "error", code: "expired_leases", message: `${expired} task lease(s) of this run expired; repair redispatches them.` });
    if (s.liveness_state === "workflow_replay_blocked")
      findings.push({ severity: "error", code: "workflow_replay_blocked", message: s.liveness_reason });
  }
  if (s.task_problem === 1) findings.push({ severity: "warning", code: "task_problem", message: s.liveness_state === "repair_needed" ? s.liveness_reason : "The run needed task repair in the past." });
  if (s.repair_attention === 1) findings.push({ severity: "warning", code: "repair_attention", message: `Repair is blocked: ${s.repair_blocked_reason ?? "unknown"}.` });

  return {
    generated_at: isoMicros(now),
    workflow_id: run.workflow_instance_id,
    run_id: run.id,
    namespace: run.namespace,
    diagnostic_status: status,
    execution: compact({
      status: run.status,
      status_bucket: s.status_bucket,
      is_terminal: isTerminal(run.status),
      workflow_type: run.workflow_type,
      task_queue: run.queue,
      compatibility: run.compatibility,
      run_number: run.run_number,
      started_at: isoMicros(run.started_at),
      closed_at: isoMicros(run.closed_at),
      last_progress_at: isoOffset(run.last_progress_at),
      wait_kind: s.wait_kind,
      wait_reason: s.wait_reason,
      liveness_state: s.liveness_state,
      liveness_reason: s.liveness_reason,
      repair_attention: s.repair_attention === 1,
      task_problem: s.task_problem === 1,
      task_problem_badge: taskProblemBadge(s),
      last_event: lastEvent,
      next_scheduled_event: nextTask
        ? compact({
            source: "open_task",
            task_id: nextTask.id,
            task_type: nextTask.task_type,
            task_status: nextTask.status,
            available_at: isoMicros(nextTask.available_at),
            lease_expires_at: isoMicros(nextTask.lease_expires_at),
            wait_deadline_at: isoMicros(s.wait_deadline_at),
          })
        : null,
    }),
    pending_workflow_tasks: pendingTasks,
    pending_activities: pendingActivities,
    task_queue: queue,
    recent_failures: failures,
    compatibility: {
      run: compact({ compatibility: run.compatibility, summary_compatibility: s.compatibility, task_queue: run.queue }),
      task_queue_pollers: queue ? (queue.pollers as Json[]) : [],
      namespace_worker_fleet: fleetSummary(db, run.namespace, now),
    },
    findings,
  };
}
