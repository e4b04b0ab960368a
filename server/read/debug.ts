import type { Db } from "../store/db";
import { claimFailed, dispatchFailed, dispatchOverdue, leaseExpired, transportState } from "../engine/task-health";
import type { ActivityRow, AttemptRow, FailureRow, RunRow, TaskRow } from "../engine/rows";
import { isTerminal, parsePayload } from "../engine/rows";
import type { RunSummary } from "../engine/summary";
import { fleetSummary, queueDetail } from "./fleet";
import { compact, isoMicros, str } from "./format";
import type { Json } from "./format";

const PREVIEW_MAX_BYTES = 4096;

type TaskProblemCode = "replay_blocked" | "active" | "history";

const TASK_PROBLEM_BADGES: Record<TaskProblemCode, { label: string; description: string; tone: string }> = {
  replay_blocked: {
    label: "Task Failure",
    description: "A workflow task failed and replay is blocked until a compatible build runs it.",
    tone: "dark",
  },
  active: {
    label: "Task Problem",
    description: "The run's durable task transport currently needs attention.",
    tone: "warning",
  },
  history: {
    label: "Task History",
    description: "The run needed task repair or replay recovery in the past.",
    tone: "secondary",
  },
};

/** `WorkflowTaskProblem` badge: replay_blocked / active / history, or null without a task problem. */
export function taskProblemBadge(s: RunSummary): Json | null {
  if (s.task_problem !== 1) return null;
  let code: TaskProblemCode = "history";
  if (s.liveness_state === "workflow_replay_blocked") code = "replay_blocked";
  else if (
    (s.liveness_state === "repair_needed" &&
      [null, "workflow-task", "update", "signal", "child", "condition"].includes(s.wait_kind)) ||
    s.liveness_state.includes("task_claim_failed") ||
    s.liveness_state.includes("waiting_for_compatible_worker")
  )
    code = "active";
  const b = TASK_PROBLEM_BADGES[code];
  return { code, label: b.label, description: b.description, tone: b.tone, badge_visible: true };
}

const NOT_APPLICABLE = null;

/**
 * `WorkflowRunDiagnostics::workflowTaskSummary` (durable-workflow/server@11d35b7
 * app/Support/WorkflowRunDiagnostics.php), verbatim.
 */
function workflowTaskSummary(t: TaskRow, now: number): string {
  const p = parsePayload(t.payload);
  if (p.replay_blocked === true) return "Workflow replay blocked.";
  if (leaseExpired(t, now)) return "Workflow task lease expired; waiting for recovery.";
  if (dispatchFailed(t)) return "Workflow task dispatch failed; waiting for recovery.";
  if (claimFailed(t)) return "Workflow task claim failed; worker backend capability is unsupported.";
  if (dispatchOverdue(t, now)) return "Workflow task is ready but dispatch is overdue.";
  const wait = str(p.workflow_wait_kind);
  const timerResume = str(p.resume_source_kind) === "timer";
  const verb = t.status === "ready" ? "ready" : t.status === "leased" ? "leased" : null;
  if (verb === null) return "Workflow task is not pending.";
  if (wait === "update") return `Workflow task ${verb} to apply accepted update.`;
  if (wait === "signal")
    return timerResume
      ? `Workflow task ${verb} to apply signal timeout.`
      : `Workflow task ${verb} to apply accepted signal.`;
  if (wait === "condition") return `Workflow task ${verb} to apply condition timeout.`;
  return verb === "ready" ? "Workflow task ready to resume the selected run." : "Workflow task leased to a worker.";
}

/**
 * `WorkerCompatibility::supports` for a server that is no worker itself: a task without a
 * compatibility marker is supported; this server reports nothing for marked tasks (it keeps no
 * worker compatibility of its own, and no per-build fleet matrix).
 */
function compatibilityFields(compatibility: string | null): Json {
  if (compatibility !== null) return {};
  return {
    compatibility_supported: true,
    compatibility_reason: NOT_APPLICABLE,
    compatibility_supported_in_fleet: true,
    compatibility_fleet_reason: NOT_APPLICABLE,
  };
}

/** One `pending_workflow_tasks` row: `workflowTaskRow` through `task()` (WorkflowRunDiagnostics.php@11d35b7). */
export function taskView(t: TaskRow, now: number): Json {
  const p = parsePayload(t.payload);
  return compact({
    task_id: t.id,
    task_type: t.task_type,
    status: t.status,
    transport_state: transportState(t, now),
    summary: workflowTaskSummary(t, now),
    queue: t.queue,
    compatibility: t.compatibility,
    ...compatibilityFields(t.compatibility),
    available_at: isoMicros(t.available_at),
    leased_at: isoMicros(t.leased_at),
    lease_owner: t.lease_owner,
    lease_expires_at: isoMicros(t.lease_expires_at),
    lease_expired: leaseExpired(t, now),
    attempt_count: t.attempt_count,
    repair_count: t.repair_count,
    dispatch_failed: dispatchFailed(t),
    dispatch_overdue: dispatchOverdue(t, now),
    claim_failed: claimFailed(t),
    last_error: t.last_error,
    last_dispatch_error: t.last_dispatch_error,
    last_claim_error: t.last_claim_error,
    repair_available_at: isoMicros(t.repair_available_at),
    workflow_wait_kind: str(p.workflow_wait_kind),
    workflow_open_wait_id: str(p.open_wait_id),
    workflow_resume_source_kind: str(p.resume_source_kind),
    workflow_resume_source_id: str(p.resume_source_id),
    replay_blocked: p.replay_blocked === true,
    replay_blocked_reason: str(p.replay_blocked_reason),
    task_missing: false,
    expected_task_id: null,
    synthetic: false,
  });
}

/**
 * `summaryMissingWorkflowTaskRow` (WorkflowRunDiagnostics.php@11d35b7): the stored summary names an
 * open workflow task that no longer exists.
 */
function missingTaskRow(db: Db, run: RunRow, s: RunSummary | undefined, loaded: readonly string[]): Json | null {
  if (
    !s ||
    s.next_task_id === null ||
    s.next_task_type !== "workflow" ||
    !["ready", "leased"].includes(s.next_task_status ?? "") ||
    loaded.includes(s.next_task_id)
  )
    return null;
  if (db.prepare("SELECT 1 FROM workflow_tasks WHERE id = ? AND workflow_run_id = ?").get(s.next_task_id, run.id))
    return null;
  const compatibility = s.compatibility ?? run.compatibility;
  return compact({
    task_id: `missing:workflow:${s.next_task_id}`,
    task_type: "workflow",
    status: "missing",
    transport_state: "missing",
    summary: "Workflow task referenced by the run summary is missing.",
    queue: s.queue ?? run.queue,
    compatibility,
    ...compatibilityFields(compatibility),
    available_at: isoMicros(s.next_task_at),
    lease_expires_at: isoMicros(s.next_task_lease_expires_at),
    lease_expired: false,
    attempt_count: 0,
    repair_count: 0,
    dispatch_failed: false,
    dispatch_overdue: false,
    claim_failed: false,
    workflow_wait_kind: s.wait_kind,
    workflow_open_wait_id: s.open_wait_id,
    workflow_resume_source_kind: s.resume_source_kind,
    workflow_resume_source_id: s.resume_source_id,
    replay_blocked: false,
    task_missing: true,
    expected_task_id: s.next_task_id,
    synthetic: true,
  });
}

/** `WorkflowRunDiagnostics::diagnosticStatus` (WorkflowRunDiagnostics.php@11d35b7): the stored summary's flags decide. */
function diagnosticStatus(run: RunRow, s: RunSummary | undefined, pendingWork: boolean, backlog: number): string {
  if (isTerminal(run.status)) return "terminal";
  if (s && (s.task_problem === 1 || s.repair_attention === 1)) return "needs_attention";
  if (pendingWork) return "pending_work";
  if (s?.wait_kind) return "waiting";
  if (backlog > 0) return "queue_backlog";
  return "running";
}

/** The stored run summary, as `WorkflowRunDiagnostics::summary` reads `WorkflowRunSummary::find($run->id)`. */
function storedSummary(db: Db, runId: string): RunSummary | undefined {
  return db.prepare("SELECT * FROM workflow_run_summaries WHERE id = ?").get(runId) as RunSummary | undefined;
}

/** `pendingActivities` / `currentAttempt` (WorkflowRunDiagnostics.php@11d35b7); lease expiry is read live there too. */
function pendingActivities(db: Db, runId: string, now: number): Json[] {
  const activities = db
    .prepare(
      "SELECT * FROM activity_executions WHERE workflow_run_id = ? AND status IN ('pending', 'running') ORDER BY started_at, sequence, id LIMIT 25",
    )
    .all(runId) as ActivityRow[];
  const byId = db.prepare("SELECT * FROM activity_attempts WHERE workflow_run_id = ? AND id = ?");
  const latest = db.prepare(
    "SELECT * FROM activity_attempts WHERE workflow_run_id = ? AND activity_execution_id = ? ORDER BY attempt_number DESC, started_at DESC, id DESC LIMIT 1",
  );
  return activities.map((a) => {
    const at = ((a.current_attempt_id ? byId.get(runId, a.current_attempt_id) : undefined) ??
      latest.get(runId, a.id)) as AttemptRow | undefined;
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
}

/** `lastEvent` (WorkflowRunDiagnostics.php@11d35b7): the preview is the first 4 KiB of the payload's JSON text. */
function lastEvent(db: Db, runId: string, includePayload: boolean): Json | null {
  const last = db
    .prepare(
      "SELECT sequence, event_type, payload, recorded_at FROM workflow_history_events WHERE workflow_run_id = ? ORDER BY sequence DESC LIMIT 1",
    )
    .get(runId) as { sequence: number; event_type: string; payload: string | null; recorded_at: number } | undefined;
  if (!last) return null;
  const text = last.payload ?? "{}";
  const value: unknown = JSON.parse(text);
  const isList = Array.isArray(value);
  const keys = isList ? (value as unknown[]).map((_, n) => String(n)) : Object.keys(value as Json);
  const bytes = Buffer.from(text);
  return compact({
    sequence: last.sequence,
    event_type: last.event_type,
    timestamp: isoMicros(last.recorded_at),
    payload_summary: {
      included: includePayload,
      encoding: "json",
      size_bytes: bytes.length,
      top_level_type: isList ? "list" : "object",
      top_level_key_count: keys.length,
      top_level_keys: keys.slice(0, 20),
      top_level_keys_truncated: keys.length > 20,
      preview_max_bytes: PREVIEW_MAX_BYTES,
    },
    payload_preview: includePayload
      ? {
          encoding: "json",
          size_bytes: bytes.length,
          max_bytes: PREVIEW_MAX_BYTES,
          truncated: bytes.length > PREVIEW_MAX_BYTES,
          data: bytes.subarray(0, PREVIEW_MAX_BYTES).toString("utf8"),
        }
      : null,
  });
}

/** `nextScheduledEvent` (WorkflowRunDiagnostics.php@11d35b7): the stored summary's next task first, of any type. */
function nextScheduledEvent(s: RunSummary | undefined, tasks: readonly Json[]): Json | null {
  if (s && s.next_task_id !== null) {
    return compact({
      source: "run_summary",
      task_id: s.next_task_id,
      task_type: s.next_task_type,
      task_status: s.next_task_status,
      available_at: isoMicros(s.next_task_at),
      lease_expires_at: isoMicros(s.next_task_lease_expires_at),
      wait_deadline_at: isoMicros(s.wait_deadline_at),
    });
  }
  for (const t of tasks) {
    const at = str(t.available_at) ?? str(t.lease_expires_at);
    if (at !== null)
      return compact({
        source: "open_task",
        task_id: t.task_id,
        task_type: t.task_type,
        task_status: t.status,
        available_at: at,
      });
  }
  return null;
}

/** `findings` (WorkflowRunDiagnostics.php@11d35b7), with its messages, read off the assembled answer. */
function findings(
  pendingTasks: readonly Json[],
  pendingActivities: readonly Json[],
  queue: Json | null,
  s: RunSummary | undefined,
): Json[] {
  const stats = (queue?.stats ?? {}) as {
    pollers?: { active_count?: number };
    workflow_tasks?: { expired_lease_count?: number };
    activity_tasks?: { expired_lease_count?: number };
  };
  const out: Json[] = [];
  if ((pendingTasks.length > 0 || pendingActivities.length > 0) && (stats.pollers?.active_count ?? 0) === 0)
    out.push({
      severity: "warning",
      code: "no_active_pollers",
      message: "The run has pending work but no active pollers on its task queue.",
    });
  if ((stats.workflow_tasks?.expired_lease_count ?? 0) + (stats.activity_tasks?.expired_lease_count ?? 0) > 0)
    out.push({
      severity: "warning",
      code: "expired_leases",
      message: "The task queue has expired workflow or activity leases.",
    });
  if (s?.task_problem === 1)
    out.push({ severity: "warning", code: "task_problem", message: "The run summary has a task problem flag." });
  if (s?.repair_attention === 1)
    out.push({ severity: "warning", code: "repair_attention", message: "The run needs repair attention." });
  if (pendingTasks.some((t) => t.replay_blocked === true))
    out.push({
      severity: "error",
      code: "workflow_replay_blocked",
      message: "A pending workflow task is replay-blocked.",
    });
  return out;
}

/**
 * `WorkflowRunDiagnostics::forRun` (durable-workflow/server@11d35b7): a bounded support snapshot
 * (≤ 25 open workflow tasks, ≤ 25 open activities, ≤ 10 recent failures). Run-level liveness is
 * the STORED summary, as the real server reads it — an expired lease reads `repair_needed` once
 * the sweep has refreshed the summary (≤ one `loop_throttle_seconds`), while the task rows'
 * `transport_state` / `lease_expired` and the activities' `current_attempt.lease_expired` are
 * evaluated now, as there. `pending_workflow_tasks` lists workflow tasks only; the next task of any
 * type is `execution.next_scheduled_event` (source `run_summary`).
 */
export function debugRun(db: Db, run: RunRow, now: number, opts: { includeLastEventPayload: boolean }): Json {
  const s = storedSummary(db, run.id);
  const tasks = db
    .prepare(
      "SELECT * FROM workflow_tasks WHERE workflow_run_id = ? AND task_type = 'workflow' AND status IN ('ready', 'leased') ORDER BY available_at, created_at, id LIMIT 25",
    )
    .all(run.id) as TaskRow[];
  const pendingTasks: Json[] = tasks.map((t) => taskView(t, now));
  const missing =
    pendingTasks.length < 25
      ? missingTaskRow(
          db,
          run,
          s,
          tasks.map((t) => t.id),
        )
      : null;
  if (missing) pendingTasks.push(missing);
  const activities = pendingActivities(db, run.id, now);

  const failures = (
    db
      .prepare("SELECT * FROM workflow_failures WHERE workflow_run_id = ? ORDER BY created_at DESC, id DESC LIMIT 10")
      .all(run.id) as FailureRow[]
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

  const queue = run.queue ? queueDetail(db, run.namespace, run.queue, now, { withAdmission: false }) : null;
  const backlog = queue ? Number((queue.stats as { approximate_backlog_count: number }).approximate_backlog_count) : 0;
  return {
    generated_at: isoMicros(now),
    workflow_id: run.workflow_instance_id,
    run_id: run.id,
    namespace: run.namespace,
    diagnostic_status: diagnosticStatus(run, s, pendingTasks.length > 0 || activities.length > 0, backlog),
    execution: compact({
      status: run.status,
      status_bucket: s?.status_bucket ?? null,
      is_terminal: isTerminal(run.status),
      workflow_type: run.workflow_type,
      task_queue: run.queue,
      compatibility: run.compatibility,
      run_number: run.run_number,
      started_at: isoMicros(run.started_at),
      closed_at: isoMicros(run.closed_at),
      last_progress_at: isoMicros(run.last_progress_at),
      wait_kind: s?.wait_kind ?? null,
      wait_reason: s?.wait_reason ?? null,
      liveness_state: s?.liveness_state ?? null,
      liveness_reason: s?.liveness_reason ?? null,
      repair_attention: s ? s.repair_attention === 1 : null,
      task_problem: s ? s.task_problem === 1 : null,
      task_problem_badge: s ? taskProblemBadge(s) : null,
      last_event: lastEvent(db, run.id, opts.includeLastEventPayload),
      next_scheduled_event: nextScheduledEvent(s, pendingTasks),
    }),
    pending_workflow_tasks: pendingTasks,
    pending_activities: activities,
    task_queue: queue,
    recent_failures: failures,
    compatibility: compact({
      run: { compatibility: run.compatibility, summary_compatibility: s?.compatibility ?? null, task_queue: run.queue },
      task_queue_pollers: queue ? (queue.pollers as Json[]) : [],
      namespace_worker_fleet: fleetSummary(db, run.namespace, now),
    }),
    findings: findings(pendingTasks, activities, queue, s),
  };
}
