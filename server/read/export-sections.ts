import { parsePayload } from "../engine/rows";
import { commandAttribution } from "../engine/command-context";
import { statusBucket } from "../engine/summary";
import type { ActivityRow, AttemptRow, CommandRow, FailureRow, RunRow, TaskRow, TimerRow } from "../engine/rows";
import { EXCEPTION_CLASSES, WORKER_FAILURE_CLASS } from "../engine/lifecycle";
import type { RunSummary } from "../engine/summary";
import { taskProblemBadge } from "./debug";
import { isoMicros, memoValue, parseArray, parseObject } from "./format";
import type { Json } from "./format";
import { DEFAULT_CODEC } from "./payload-manifest";
import type { FailureSnapshot } from "./timeline";

/**
 * The export bundle's sections, one row at a time: each function turns a stored row into the
 * element `HistoryExport` (durable-workflow/workflow@8dc90d6 src/V2/Support/HistoryExport.php)
 * writes for it, every key in the engine's order. Reading the rows is export.ts's part.
 */

export interface SignalRecord {
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

export interface LinkRecord {
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

/** The columns of the run at a link's other end that its element names. */
export interface LinkedRun {
  run_number: number;
  workflow_type: string;
  workflow_class: string | null;
  status: string;
  closed_reason: string | null;
}

/**
 * `HistoryExport::summary` (durable-workflow/workflow@8dc90d6 src/V2/Support/HistoryExport.php):
 * the STORED summary row, as the engine exports it — no `repair_blocked_reason` (the current
 * engine has none here), `history_fan_out` and `history_budget_pressure` present.
 */
export function summaryView(s: RunSummary, run: RunRow): Json {
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

export function taskExport(t: TaskRow): Json {
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
export function activityExport(a: ActivityRow, attempts: AttemptRow[], eventTypes: Set<string> | undefined) {
  const options = parseObject(a.activity_options) ?? {};
  const local = options.execution_mode === "local";
  const types = [...(eventTypes ?? [])];
  return {
    id: a.id,
    idempotency_key: a.id,
    sequence: a.sequence,
    activity_type: a.activity_type,
    activity_class: a.activity_class,
    // What the options name, else null (HistoryExport.php@8dc90d64: `$activity['execution_mode'] ?? null`).
    execution_mode: typeof options.execution_mode === "string" ? options.execution_mode : null,
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
export function failureSnapshot(f: FailureRow): FailureSnapshot {
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
/** What the history pass learned about failures: the first typed event of each, and the handled ones. */
export interface FailureHistory {
  typedFailure: Map<string, number>;
  handled: Set<string>;
}

/** `HistoryExport::failure` (HistoryExport.php@8dc90d6) has no event sequence; the list keeps history order. */
export function failuresExport(failureRows: FailureRow[], history: FailureHistory): Json[] {
  const { typedFailure, handled } = history;
  const failureOrder = (id: string): number => typedFailure.get(id) ?? Number.MAX_SAFE_INTEGER;
  return [...failureRows]
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
}

export function commandExport(c: CommandRow) {
  const context = parseObject(c.context);
  const who = commandAttribution(c);
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
    // Who sent it: the stored `caller`/`auth`/`request` parts (engine/command-context.ts).
    caller_label: who.caller_label,
    principal_type: null,
    principal_id: null,
    principal_label: null,
    auth_status: who.auth_status,
    auth_method: who.auth_method,
    request_method: who.request_method,
    request_path: who.request_path,
    request_route_name: null,
    request_fingerprint: null,
    request_id: who.request_id,
    correlation_id: who.correlation_id,
    status: c.status,
    outcome: c.outcome,
    reason: context && typeof context.reason === "string" ? context.reason : null,
    rejection_reason: c.rejection_reason,
    validation_errors: [],
    accepted_at: isoMicros(c.accepted_at),
    applied_at: isoMicros(c.applied_at),
    rejected_at: isoMicros(c.rejected_at),
  };
}

export type CommandExport = ReturnType<typeof commandExport>;

/** A signal record, with what its command (when it has one) says about target and outcome. */
export function signalExport(s: SignalRecord, cmd: CommandExport | undefined, runId: string): Json {
  return {
    id: s.id,
    command_id: s.workflow_command_id,
    command_sequence: cmd?.sequence ?? null,
    workflow_sequence: s.message_sequence,
    name: s.signal_name,
    signal_wait_id: null,
    target_scope: cmd?.target_scope ?? "instance",
    requested_run_id: cmd?.requested_run_id ?? null,
    resolved_run_id: cmd?.resolved_run_id ?? runId,
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
}

/** `HistoryExport::timer` (HistoryExport.php@8dc90d6); this server has no condition or signal timeouts. */
export function timerExport(t: TimerRow, historyEventTypes: string[]) {
  return {
    id: t.id,
    sequence: t.sequence,
    status: t.status,
    source_status: t.status,
    delay_seconds: t.delay_seconds,
    fire_at: isoMicros(t.fire_at),
    fired_at: isoMicros(t.fired_at),
    cancelled_at: isoMicros(t.cancelled_at),
    created_at: isoMicros(t.created_at),
    timer_kind: null,
    condition_wait_id: null,
    condition_key: null,
    condition_definition_fingerprint: null,
    signal_wait_id: null,
    signal_name: null,
    history_authority: "typed_history",
    diagnostic_only: false,
    history_event_types: historyEventTypes,
    history_unsupported_reason: null,
    row_status: t.status,
  };
}

export type TimerExport = ReturnType<typeof timerExport>;

/** One `links.parents` / `links.children` element, with the run at the other end (when it still exists). */
export function linkExport(l: LinkRecord, other: LinkedRun | undefined): Json {
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
}

/** The bundle's `workflow` section: the run row, and whether it is its instance's current run. */
export function workflowView(run: RunRow, currentRunId: string | null): Json {
  return {
    instance_id: run.workflow_instance_id,
    run_id: run.id,
    run_number: run.run_number,
    is_current_run: currentRunId === run.id,
    current_run_id: currentRunId,
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
  };
}

/** The bundle's `payloads` section: the run's arguments and output with their codecs. */
export function payloadsView(run: RunRow): Json {
  return {
    codec: run.payload_codec ?? DEFAULT_CODEC,
    arguments: { available: run.arguments !== null, data: run.arguments },
    // `'codec' => $run->output !== null ? $run->outputPayloadCodec() : null` (HistoryExport.php@8dc90d6)
    output: {
      available: run.output !== null,
      codec: run.output !== null ? (run.output_payload_codec ?? run.payload_codec ?? DEFAULT_CODEC) : null,
      data: run.output,
    },
  };
}

export type ActivityExport = ReturnType<typeof activityExport>;
