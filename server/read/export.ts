import type { Db } from "../store/db";
import { parsePayload, statusBucket } from "../engine/summary";
import type { ActivityRow, AttemptRow, CommandRow, FailureRow, RunRow, TaskRow, TimerRow } from "../engine/rows";
import { EngineError } from "../engine/errors";
import { isTerminal } from "../engine/rows";
import { EXCEPTION_CLASSES, WORKER_FAILURE_CLASS } from "../engine/lifecycle";
import type { RunSummary } from "../engine/summary";
import { canonicalDigests } from "./canonical-json";
import { canonicalDigestSteps } from "./chunked-json";
import { taskProblemBadge } from "./debug";
import { isoMicros, memoValue, parseArray, parseObject, str } from "./format";
import type { Json } from "./format";
import { currentRun, findInstance, findRun } from "./runs";
import { readSnapshot } from "./snapshot";
import type { Steps } from "./time-slice";
import { runSliced, runSync } from "./time-slice";
import { codecSchemas, DEFAULT_CODEC, payloadManifestSteps } from "./payload-manifest";
import type { ManifestSource } from "./payload-manifest";
import { timelineEntry } from "./timeline";
import type { FailureSnapshot, HistoryEventRecord, TimelineContext } from "./timeline";

export interface ExportSigning {
  key: string;
  keyId: string | null;
}

interface SignalRecord {
  id: string;
  workflow_command_id: string | null;
  signal_name: string;
  status: string;
  payload_codec: string | null;
  arguments: string | null;
  message_sequence: number | null;
  received_at: number;
  applied_at: number | null;
}

interface LinkRecord {
  id: string;
  link_type: string;
  sequence: number | null;
  parent_workflow_instance_id: string;
  parent_workflow_run_id: string;
  child_workflow_instance_id: string;
  child_workflow_run_id: string;
  is_primary_parent: number;
  created_at: number;
}

/**
 * `HistoryExport::summary` (durable-workflow/workflow@8dc90d6 src/V2/Support/HistoryExport.php):
 * the STORED summary row, as the engine exports it — no `repair_blocked_reason` (the current
 * engine has none here), `history_fan_out` and `history_budget_pressure` present.
 */
function summaryView(s: RunSummary, run: RunRow): Json {
  return {
    status: s.status,
    status_bucket: s.status_bucket,
    closed_reason: s.closed_reason,
    archived_at: isoMicros(s.archived_at),
    archive_command_id: s.archive_command_id,
    archive_reason: s.archive_reason,
    business_key: s.business_key,
    visibility_labels: parseArray(s.visibility_labels) ?? [],
    search_attributes: parseObject(run.search_attributes) ?? {},
    is_current_run: s.is_current_run === 1,
    started_at: isoMicros(s.started_at),
    closed_at: isoMicros(s.closed_at),
    duration_ms: s.duration_ms,
    wait_kind: s.wait_kind,
    wait_reason: s.wait_reason,
    wait_started_at: isoMicros(s.wait_started_at),
    wait_deadline_at: isoMicros(s.wait_deadline_at),
    open_wait_id: s.open_wait_id,
    resume_source_kind: s.resume_source_kind,
    resume_source_id: s.resume_source_id,
    next_task_at: isoMicros(s.next_task_at),
    next_task_id: s.next_task_id,
    next_task_type: s.next_task_type,
    next_task_status: s.next_task_status,
    next_task_lease_expires_at: isoMicros(s.next_task_lease_expires_at),
    liveness_state: s.liveness_state,
    liveness_reason: s.liveness_reason,
    repair_attention: s.repair_attention === 1,
    task_problem: s.task_problem === 1,
    task_problem_badge: taskProblemBadge(s),
    exception_count: s.exception_count,
    history_event_count: s.history_event_count,
    history_size_bytes: s.history_size_bytes,
    history_fan_out: s.history_fan_out,
    continue_as_new_recommended: s.continue_as_new_recommended === 1,
    history_budget_pressure: s.history_budget_pressure || "ok",
    sort_timestamp: isoMicros(s.sort_timestamp),
    sort_key: s.sort_key,
  };
}

function taskExport(t: TaskRow): Json {
  return {
    id: t.id,
    type: t.task_type,
    status: t.status,
    payload: parsePayload(t.payload),
    connection: t.connection,
    queue: t.queue,
    compatibility: t.compatibility,
    attempt_count: t.attempt_count,
    repair_count: t.repair_count,
    available_at: isoMicros(t.available_at),
    leased_at: isoMicros(t.leased_at),
    lease_owner: t.lease_owner,
    lease_expires_at: isoMicros(t.lease_expires_at),
    last_dispatch_attempt_at: isoMicros(t.last_dispatch_attempt_at),
    last_dispatched_at: isoMicros(t.last_dispatched_at),
    last_dispatch_error: t.last_dispatch_error,
    last_claim_failed_at: isoMicros(t.last_claim_failed_at),
    last_claim_error: t.last_claim_error,
    repair_available_at: isoMicros(t.repair_available_at),
    created_at: isoMicros(t.created_at),
  };
}

/** One `activities` element: the execution row, its attempts, and the history event types that name it. */
function activityExport(a: ActivityRow, attempts: AttemptRow[], eventTypes: Set<string> | undefined) {
  const options = parseObject(a.activity_options) ?? {};
  const local = options.execution_mode === "local";
  const types = [...(eventTypes ?? [])];
  return {
    id: a.id,
    idempotency_key: a.id,
    sequence: a.sequence,
    activity_type: a.activity_type,
    activity_class: a.activity_class,
    execution_mode: local ? "local" : "queued",
    local_activity: local,
    payload_codec: a.payload_codec,
    status: a.status,
    source_status: a.status,
    history_authority: types.length > 0 ? "typed_history" : "mutable_open_fallback",
    diagnostic_only: types.length === 0,
    history_event_types: types,
    history_unsupported_reason: null,
    row_status: a.status,
    parallel_group_kind: null,
    parallel_group_id: null,
    parallel_group_base_sequence: null,
    parallel_group_size: null,
    parallel_group_index: null,
    parallel_group_path: [],
    connection: a.connection,
    queue: a.queue,
    retry_policy: parseObject(a.retry_policy),
    attempt_count: a.attempt_count,
    current_attempt_id: a.current_attempt_id,
    arguments: a.arguments,
    result: a.result,
    created_at: isoMicros(a.created_at),
    started_at: isoMicros(a.started_at),
    last_heartbeat_at: isoMicros(a.last_heartbeat_at),
    last_heartbeat_progress: null,
    closed_at: isoMicros(a.closed_at),
    // `HistoryExport::activityAttempts` (HistoryExport.php@8dc90d6) types attempt_number and status
    // nullable (`?? null`); this server's attempt rows always have both.
    attempts: attempts.map((at) => ({
      id: at.id,
      activity_execution_id: at.activity_execution_id,
      workflow_task_id: at.workflow_task_id,
      attempt_number: at.attempt_number,
      status: at.status,
      lease_owner: at.lease_owner,
      started_at: isoMicros(at.started_at),
      last_heartbeat_at: isoMicros(at.last_heartbeat_at),
      last_heartbeat_progress: null,
      lease_expires_at: isoMicros(at.lease_expires_at),
      closed_at: isoMicros(at.closed_at),
    })),
  };
}

/** A failure row as `FailureSnapshots::forRun` hands it to the timeline builder. */
function failureSnapshot(f: FailureRow): FailureSnapshot {
  return {
    id: f.id,
    source_kind: f.source_kind,
    source_id: f.source_id,
    propagation_kind: f.propagation_kind,
    failure_category: f.failure_category,
    non_retryable: f.non_retryable === 1,
    handled: f.handled === 1,
    exception_type: f.exception_type,
    exception_class: f.exception_class,
    message: f.message,
    file: f.file,
    line: f.line,
  };
}

/**
 * PHP classes a failure row can name that the engine would resolve as `recorded_class`
 * (`FailureFactory::replayResolution` → `TypeRegistry::resolveThrowableClassWithSource`,
 * workflow@8dc90d64): the class a worker failure is restored as, and the engine's own exceptions
 * this server records.
 */
const RESOLVABLE_CLASSES: ReadonlySet<string> = new Set([
  WORKER_FAILURE_CLASS,
  "Exception",
  ...Object.values(EXCEPTION_CLASSES),
]);

/** A class this server cannot vouch for is what an engine without it reports: `unresolved`. */
function exceptionResolution(exceptionClass: string | null): Json {
  return exceptionClass !== null && RESOLVABLE_CLASSES.has(exceptionClass)
    ? {
        exception_resolved_class: exceptionClass,
        exception_resolution_source: "recorded_class",
        exception_resolution_error: null,
      }
    : { exception_resolved_class: null, exception_resolution_source: "unresolved", exception_resolution_error: null };
}

/** `WorkflowCommand::requestMethod()` / `requestPath()` (workflow@8dc90d64): the context's `request` part. */
export function commandRequestField(context: Json | null, key: "method" | "path"): string | null {
  const request = context?.request;
  if (request === null || typeof request !== "object" || Array.isArray(request)) return null;
  const value = (request as Json)[key];
  return typeof value === "string" ? value : null;
}

/** Activity and timer waits name no command (`RunWaitView`, RunWaitView.php@8dc90d64). */
const NO_WAIT_COMMAND = {
  command_id: null,
  command_sequence: null,
  command_status: null,
  command_outcome: null,
} as const;

/** A wait row's parallel-group keys, copied from its activity row as `RunWaitView::activityWait` does. */
function waitGroup(a: ReturnType<typeof activityExport>): Json {
  return {
    parallel_group_kind: a.parallel_group_kind,
    parallel_group_id: a.parallel_group_id,
    parallel_group_base_sequence: a.parallel_group_base_sequence,
    parallel_group_size: a.parallel_group_size,
    parallel_group_index: a.parallel_group_index,
    parallel_group_path: a.parallel_group_path,
  };
}

/** Which run to export: the route has resolved it, the snapshot reads it again. */
export interface RunRef {
  namespace: string;
  workflowId: string;
  runId: string;
}

/** Every row of a query, pausing after each (the iterator keeps the statement open meanwhile). */
function* rows<T>(db: Db, sql: string, ...params: unknown[]): Steps<T[]> {
  const out: T[] = [];
  for (const row of db.prepare(sql).iterate(...params)) {
    out.push(row as T);
    yield;
  }
  return out;
}

/** `items.map(f)`, pausing after each element. */
function* mapEach<T, U>(items: readonly T[], f: (item: T) => U): Steps<U[]> {
  const out: U[] = [];
  for (const item of items) {
    out.push(f(item));
    yield;
  }
  return out;
}

/**
 * `HistoryExport::forRun`: the full run bundle (history, timeline, activities with attempts,
 * failures, tasks, commands, signals, timers, waits, links), everything but `integrity`. All of
 * it is read from `db`; `exportRunSliced` hands it a snapshot, so the reads agree with each other.
 */
function* buildBundle(db: Db, ref: RunRef, now: number): Steps<Json> {
  const instance = findInstance(db, ref.namespace, ref.workflowId);
  const run = findRun(db, ref.runId);
  if (!instance || !run || run.namespace !== instance.namespace || run.workflow_instance_id !== instance.id) {
    throw new EngineError(404, "run_not_found", "Workflow run not found.", {
      workflow_id: ref.workflowId,
      run_id: ref.runId,
    });
  }
  // The stored summary, as `HistoryExport::forRun` reads `$run->summary` (HistoryExport.php@8dc90d6).
  const summary = db.prepare("SELECT * FROM workflow_run_summaries WHERE id = ?").get(run.id) as RunSummary | undefined;
  const current = currentRun(db, instance);
  yield;
  const failureRows = yield* rows<FailureRow>(
    db,
    "SELECT * FROM workflow_failures WHERE workflow_run_id = ? ORDER BY created_at, id",
    run.id,
  );
  const activityRows = yield* rows<ActivityRow>(
    db,
    "SELECT * FROM activity_executions WHERE workflow_run_id = ? ORDER BY sequence",
    run.id,
  );
  const taskRows = yield* rows<TaskRow>(
    db,
    "SELECT * FROM workflow_tasks WHERE workflow_run_id = ? ORDER BY created_at, id",
    run.id,
  );
  const commandRows = yield* rows<CommandRow>(
    db,
    "SELECT * FROM workflow_commands WHERE workflow_run_id = ? OR resolved_workflow_run_id = ? ORDER BY created_at, id",
    run.id,
    run.id,
  );
  const timerRows = yield* rows<TimerRow>(
    db,
    "SELECT * FROM workflow_run_timers WHERE workflow_run_id = ? ORDER BY sequence",
    run.id,
  );
  const timelineContext: TimelineContext = {
    runId: run.id,
    commands: new Map(commandRows.map((c) => [c.id, c])),
    tasks: new Map(taskRows.map((t) => [t.id, t])),
    activities: new Map(activityRows.map((a) => [a.id, a])),
    timers: new Map(timerRows.map((t) => [t.id, t])),
    failures: new Map(failureRows.map((f) => [f.id, failureSnapshot(f)])),
  };

  const typedFailure = new Map<string, number>();
  const handled = new Set<string>();
  const eventTypesByActivity = new Map<string, Set<string>>();
  const timerEventTypes = new Map<string, string[]>();
  const historyEvents: Json[] = [];
  const timeline: Json[] = [];
  const eventSql =
    "SELECT id, sequence, event_type, payload, workflow_task_id, workflow_command_id, recorded_at FROM workflow_history_events WHERE workflow_run_id = ? ORDER BY sequence";
  for (const row of db.prepare(eventSql).iterate(run.id) as IterableIterator<
    Omit<HistoryEventRecord, "payload"> & { payload: string | null }
  >) {
    const e: HistoryEventRecord = { ...row, payload: parseObject(row.payload) ?? {} };
    const fid = str(e.payload.failure_id);
    if (fid && e.event_type !== "FailureHandled" && !typedFailure.has(fid)) typedFailure.set(fid, e.sequence);
    if (fid && e.event_type === "FailureHandled") handled.add(fid);
    const tid = str(e.payload.timer_id);
    if (tid && e.event_type.startsWith("Timer"))
      timerEventTypes.set(tid, [...new Set([...(timerEventTypes.get(tid) ?? []), e.event_type])]);
    const aid = str(e.payload.activity_execution_id);
    if (aid && e.event_type.startsWith("Activity")) {
      const set = eventTypesByActivity.get(aid) ?? new Set<string>();
      set.add(e.event_type);
      eventTypesByActivity.set(aid, set);
    }
    historyEvents.push({
      id: e.id,
      sequence: e.sequence,
      type: e.event_type,
      workflow_task_id: e.workflow_task_id,
      workflow_command_id: e.workflow_command_id,
      recorded_at: isoMicros(e.recorded_at),
      payload: e.payload,
    });
    // Every key, nulls included, as `HistoryTimeline::mapEvent` writes it (HistoryTimeline.php@8dc90d64):
    // the same shape as the real server wins over the bundle's size (decision 0014).
    timeline.push(timelineEntry(e, timelineContext));
    yield;
  }

  // `HistoryExport::failure` (HistoryExport.php@8dc90d6) has no event sequence; the list keeps history order.
  const failureOrder = (id: string): number => typedFailure.get(id) ?? Number.MAX_SAFE_INTEGER;
  const failures = [...failureRows]
    .sort((x, y) => failureOrder(x.id) - failureOrder(y.id))
    .map((f) => ({
      id: f.id,
      source_kind: f.source_kind,
      source_id: f.source_id,
      propagation_kind: f.propagation_kind,
      failure_category: f.failure_category,
      non_retryable: f.non_retryable === 1,
      handled: f.handled === 1 || handled.has(f.id),
      history_authority: typedFailure.has(f.id) ? "typed_history" : "failure_row_fallback",
      diagnostic_only: !typedFailure.has(f.id),
      exception_type: f.exception_type,
      exception_class: f.exception_class,
      ...exceptionResolution(f.exception_class),
      exception_replay_blocked: false,
      message: f.message,
      file: f.file,
      line: f.line,
      trace_preview: f.trace_preview,
      created_at: isoMicros(f.created_at),
    }));
  yield;

  const attemptsByActivity = new Map<string, AttemptRow[]>();
  for (const at of yield* rows<AttemptRow>(
    db,
    "SELECT * FROM activity_attempts WHERE workflow_run_id = ? ORDER BY activity_execution_id, attempt_number",
    run.id,
  )) {
    const list = attemptsByActivity.get(at.activity_execution_id);
    if (list) list.push(at);
    else attemptsByActivity.set(at.activity_execution_id, [at]);
  }
  const activities: ReturnType<typeof activityExport>[] = [];
  for (const a of activityRows) {
    activities.push(activityExport(a, attemptsByActivity.get(a.id) ?? [], eventTypesByActivity.get(a.id)));
    yield;
  }

  const tasks = yield* mapEach(taskRows, taskExport);
  const commands = yield* mapEach(commandRows, (c) => {
    const context = parseObject(c.context);
    return {
      id: c.id,
      sequence: c.command_sequence,
      message_sequence: c.message_sequence,
      type: c.command_type,
      target_scope: c.target_scope,
      requested_run_id: c.requested_workflow_run_id,
      resolved_run_id: c.resolved_workflow_run_id,
      target_name: c.target_name,
      payload_codec: c.payload_codec,
      payload: c.payload,
      source: c.source,
      // `WorkflowCommand::publicContext()` (workflow@8dc90d6): only workflow/intake/principal parts,
      // none of which this server records — PHP encodes the empty array as `[]`. The reason is `reason`.
      context: [],
      caller_label: null,
      principal_type: null,
      principal_id: null,
      principal_label: null,
      auth_status: null,
      auth_method: null,
      request_method: commandRequestField(context, "method"),
      request_path: commandRequestField(context, "path"),
      request_route_name: null,
      request_fingerprint: null,
      request_id: c.request_id,
      correlation_id: null,
      status: c.status,
      outcome: c.outcome,
      reason: context && typeof context.reason === "string" ? context.reason : null,
      rejection_reason: c.rejection_reason,
      validation_errors: [],
      accepted_at: isoMicros(c.accepted_at),
      applied_at: isoMicros(c.applied_at),
      rejected_at: isoMicros(c.rejected_at),
    };
  });
  const commandById = new Map(commands.map((c) => [c.id, c]));
  const signalRows = yield* rows<SignalRecord>(
    db,
    "SELECT * FROM workflow_signal_records WHERE workflow_run_id = ? ORDER BY received_at, id",
    run.id,
  );
  const signals = yield* mapEach(signalRows, (s) => {
    const cmd = s.workflow_command_id ? commandById.get(s.workflow_command_id) : undefined;
    return {
      id: s.id,
      command_id: s.workflow_command_id,
      command_sequence: cmd?.sequence ?? null,
      workflow_sequence: s.message_sequence,
      name: s.signal_name,
      signal_wait_id: null,
      target_scope: cmd?.target_scope ?? "instance",
      requested_run_id: cmd?.requested_run_id ?? null,
      resolved_run_id: cmd?.resolved_run_id ?? run.id,
      status: s.status,
      outcome: cmd?.outcome ?? "signal_received",
      rejection_reason: null,
      validation_errors: [],
      received_at: isoMicros(s.received_at),
      applied_at: isoMicros(s.applied_at),
      rejected_at: null,
      closed_at: isoMicros(s.applied_at),
      payload_codec: s.payload_codec,
      arguments: s.arguments,
    };
  });
  const timers = yield* mapEach(timerRows, (t) => ({
    id: t.id,
    sequence: t.sequence,
    status: t.status,
    source_status: t.status,
    delay_seconds: t.delay_seconds,
    fire_at: isoMicros(t.fire_at),
    fired_at: isoMicros(t.fired_at),
    cancelled_at: isoMicros(t.cancelled_at),
    created_at: isoMicros(t.created_at),
    // `HistoryExport::timer` (HistoryExport.php@8dc90d6); this server has no condition or signal timeouts.
    timer_kind: null,
    condition_wait_id: null,
    condition_key: null,
    condition_definition_fingerprint: null,
    signal_wait_id: null,
    signal_name: null,
    history_authority: "typed_history",
    diagnostic_only: false,
    history_event_types: timerEventTypes.get(t.id) ?? [],
    history_unsupported_reason: null,
    row_status: t.status,
  }));

  const openTaskRows = yield* rows<TaskRow>(
    db,
    "SELECT * FROM workflow_tasks WHERE workflow_run_id = ? AND status IN ('ready', 'leased')",
    run.id,
  );
  const openTasks = openTaskRows.map((t) => ({ task: t, payload: parsePayload(t.payload) }));
  const openTaskFor = (key: string, id: string): TaskRow | undefined =>
    openTasks.find((t) => t.payload[key] === id)?.task;
  // `RunWaitView::activityWait` / `timerWait` (RunWaitView.php@8dc90d64), over the exported activity
  // and timer rows: every key, the engine's summaries, and the row's own group and row status.
  const activityWaits = yield* mapEach(activities, (a) => {
    const task = openTaskFor("activity_execution_id", a.id);
    const status =
      a.status === "pending" || a.status === "running" ? "open" : a.status === "cancelled" ? "cancelled" : "resolved";
    const type = a.activity_type ?? a.activity_class ?? "activity";
    const summary =
      status === "open"
        ? `Waiting for activity ${type}.`
        : status === "cancelled"
          ? `Activity wait for ${type} was cancelled.`
          : a.status === "failed"
            ? `Activity ${type} failed.`
            : `Activity ${type} completed.`;
    return {
      id: `activity:${a.id}`,
      kind: "activity",
      sequence: a.sequence,
      status,
      source_status: a.status,
      summary,
      opened_at: a.started_at ?? a.created_at,
      deadline_at: null,
      resolved_at: a.closed_at,
      target_name: null,
      target_type: type,
      diagnostic_only: a.diagnostic_only,
      task_backed: task !== undefined,
      external_only: false,
      resume_source_kind: "activity_execution",
      resume_source_id: a.id,
      task_id: task?.id ?? null,
      task_type: task?.task_type ?? null,
      task_status: task?.status ?? null,
      ...NO_WAIT_COMMAND,
      history_authority: a.history_authority,
      history_unsupported_reason: a.history_unsupported_reason,
      row_status: a.row_status,
      ...waitGroup(a),
    };
  });
  const timerWaits = yield* mapEach(timers, (t) => {
    const task = openTaskFor("timer_id", t.id);
    const status = t.status === "pending" ? "open" : t.status === "cancelled" ? "cancelled" : "resolved";
    const summary =
      status === "open" ? "Waiting for timer." : status === "cancelled" ? "Timer wait was cancelled." : "Timer fired.";
    return {
      id: `timer:${t.id}`,
      kind: "timer",
      sequence: t.sequence,
      status,
      source_status: t.source_status,
      summary,
      opened_at: t.created_at,
      deadline_at: t.fire_at,
      resolved_at: t.fired_at ?? t.cancelled_at,
      target_name: null,
      target_type: "timer",
      diagnostic_only: t.diagnostic_only,
      task_backed: task !== undefined,
      external_only: false,
      resume_source_kind: "timer",
      resume_source_id: t.id,
      task_id: task?.id ?? null,
      task_type: task?.task_type ?? null,
      task_status: task?.status ?? null,
      ...NO_WAIT_COMMAND,
      history_authority: t.history_authority,
      history_unsupported_reason: t.history_unsupported_reason,
      row_status: t.row_status,
      parallel_group_kind: null,
      parallel_group_id: null,
      parallel_group_base_sequence: null,
      parallel_group_size: null,
      parallel_group_index: null,
      parallel_group_path: [],
    };
  });
  const waits: Json[] = [...activityWaits, ...timerWaits];

  const linkRows = yield* rows<LinkRecord>(
    db,
    "SELECT * FROM workflow_links WHERE parent_workflow_run_id = ? OR child_workflow_run_id = ? ORDER BY created_at, id",
    run.id,
    run.id,
  );
  const linkView = (l: LinkRecord, otherRunId: string): Json => {
    const other = db
      .prepare(
        "SELECT run_number, workflow_type, workflow_class, status, closed_reason FROM workflow_runs WHERE id = ?",
      )
      .get(otherRunId) as
      | {
          run_number: number;
          workflow_type: string;
          workflow_class: string | null;
          status: string;
          closed_reason: string | null;
        }
      | undefined;
    return {
      id: l.id,
      type: l.link_type,
      parent_workflow_instance_id: l.parent_workflow_instance_id,
      parent_workflow_run_id: l.parent_workflow_run_id,
      child_workflow_instance_id: l.child_workflow_instance_id,
      child_workflow_run_id: l.child_workflow_run_id,
      child_call_id: null,
      sequence: l.sequence,
      is_primary_parent: l.is_primary_parent === 1,
      run_number: other?.run_number ?? null,
      workflow_type: other?.workflow_type ?? null,
      class: other?.workflow_class ?? null,
      status: other?.status ?? null,
      status_bucket: other ? statusBucket(other.status) : null,
      closed_reason: other?.closed_reason ?? null,
      created_at: isoMicros(l.created_at),
      history_authority: "typed_history",
      diagnostic_only: false,
    };
  };

  const parents = yield* mapEach(
    linkRows.filter((l) => l.child_workflow_run_id === run.id),
    (l) => linkView(l, l.parent_workflow_run_id),
  );
  const children = yield* mapEach(
    linkRows.filter((l) => l.parent_workflow_run_id === run.id),
    (l) => linkView(l, l.child_workflow_run_id),
  );
  const lastProgress = run.last_progress_at ?? run.created_at;
  const bundle: Json = {
    schema: "durable-workflow.v2.history-export",
    schema_version: 1,
    exported_at: isoMicros(now),
    dedupe_key: `${run.id}:${run.last_history_sequence}:${isoMicros(lastProgress)}`,
    history_complete: isTerminal(run.status),
    workflow: {
      instance_id: run.workflow_instance_id,
      run_id: run.id,
      run_number: run.run_number,
      is_current_run: current?.id === run.id,
      current_run_id: current?.id ?? null,
      current_run_source: "run_order_fallback",
      workflow_type: run.workflow_type,
      workflow_class: run.workflow_class,
      // `RoleTopologySnapshot::currentNode()` (RoleTopologySnapshot.php@8dc90d64): one process that
      // serves the HTTP API and runs every role is the `standalone_server` shape's default class.
      source_runtime: "standalone_server",
      source_process_class: "server_http_node",
      business_key: run.business_key,
      visibility_labels: (parseArray(run.visibility_labels) ?? []).filter((v): v is string => typeof v === "string"),
      memo: memoValue(run.memo),
      search_attributes: parseObject(run.search_attributes) ?? {},
      status: run.status,
      status_bucket: statusBucket(run.status),
      closed_reason: run.closed_reason,
      archived_at: isoMicros(run.archived_at),
      archive_command_id: run.archive_command_id,
      archive_reason: run.archive_reason,
      compatibility: run.compatibility,
      connection: run.connection,
      queue: run.queue,
      last_history_sequence: run.last_history_sequence,
      started_at: isoMicros(run.started_at),
      closed_at: isoMicros(run.closed_at),
      last_progress_at: isoMicros(run.last_progress_at),
    },
    payloads: {
      codec: run.payload_codec ?? DEFAULT_CODEC,
      arguments: { available: run.arguments !== null, data: run.arguments },
      // `'codec' => $run->output !== null ? $run->outputPayloadCodec() : null` (HistoryExport.php@8dc90d6)
      output: {
        available: run.output !== null,
        codec: run.output !== null ? (run.output_payload_codec ?? run.payload_codec ?? DEFAULT_CODEC) : null,
        data: run.output,
      },
    },
    summary: summary ? summaryView(summary, run) : null,
    selected_run: {
      waits_projection_source: "workflow_run_waits_rebuilt",
      timeline_projection_source: "workflow_run_timeline_entries_rebuilt",
      timers_projection_source: "workflow_run_timer_entries_rebuilt",
      timers_projection_rebuild_reasons: [],
      lineage_projection_source: "workflow_run_lineage_entries_rebuilt",
    },
    history_events: historyEvents,
    waits,
    timeline,
    linked_intakes_scope: "selected_run",
    linked_intakes: [],
    commands,
    signals,
    updates: [],
    tasks,
    activities,
    timers,
    failures,
    links: {
      projection_source: "workflow_links",
      parents,
      children,
    },
    redaction: { applied: false, policy: null, paths: [] },
  };
  // After redaction, as `HistoryExport::forRun` does: the schemas and manifest describe the bundle's own sections.
  const sections = bundle as unknown as ManifestSource & { tasks: Json[] };
  bundle.codec_schemas = codecSchemas(sections);
  bundle.payload_manifest = yield* payloadManifestSteps(sections);
  return bundle;
}

function integrityOf(digests: { sha256: string; hmacSha256: string | null }, signing: ExportSigning | null): Json {
  return {
    canonicalization: "json-recursive-ksort-v1",
    checksum_algorithm: "sha256",
    checksum: digests.sha256,
    signature_algorithm: signing ? "hmac-sha256" : null,
    signature: digests.hmacSha256,
    key_id: signing?.keyId ?? null,
  };
}

/**
 * The bundle with its integrity checksum over the canonical JSON of everything but `integrity`,
 * built in one go on `db`'s connection. The server uses `exportRunSliced`; this is for in-memory
 * databases and for tests that want the bundle as one synchronous read sees it.
 */
export function exportRun(db: Db, ref: RunRef, now: number, signing: ExportSigning | null): Json {
  const bundle = runSync(buildBundle(db, ref, now));
  bundle.integrity = integrityOf(canonicalDigests(bundle, signing?.key ?? null), signing);
  return bundle;
}

/**
 * The same bundle, read from one snapshot on a connection of its own and built, hashed (and later
 * serialised, `jsonStream`) in slices, so the event loop keeps serving worker polls and reads while
 * a 50,000-event run is exported. Events committed meanwhile are not in the bundle.
 */
export async function exportRunSliced(
  db: Db,
  ref: RunRef,
  now: number,
  signing: ExportSigning | null,
  signal?: AbortSignal,
): Promise<Json> {
  const bundle = await readSnapshot(db, (snapshot) => buildBundle(snapshot, ref, now), signal);
  const digests = await runSliced(canonicalDigestSteps(bundle, signing?.key ?? null), signal);
  bundle.integrity = integrityOf(digests, signing);
  return bundle;
}
