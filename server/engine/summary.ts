import type Database from "better-sqlite3";
import type { Db } from "../store/db";
import type { RunRow } from "./rows";
import { isTerminal } from "./rows";
import type { RunState } from "./run-liveness";
import { closedRunState, openRunState } from "./run-liveness";
import { preparedOnce as stmt } from "./statement-cache";
import { taskKind } from "./task-health";

/**
 * The run summary projection (`RunSummaryProjector`): one `workflow_run_summaries` row per run,
 * rebuilt inside every transition from the run row, its history budget, and the wait and liveness
 * its open work gives (run-liveness.ts).
 */

type Statement = Database.Statement<unknown[]>;

const BUCKET: Record<string, string> = {
  pending: "running",
  running: "running",
  waiting: "running",
  completed: "completed",
  failed: "failed",
  cancelled: "failed",
  terminated: "failed",
};

export function statusBucket(status: string): string {
  return BUCKET[status] ?? "running";
}

/** History budget thresholds (`HistoryBudget` engine defaults). */
export const HISTORY_BUDGET = {
  event_threshold: 10_000,
  size_bytes_threshold: 5_242_880,
  fan_out_threshold: 200,
  event_warning_threshold: 8_000,
  size_bytes_warning_threshold: 4_194_304,
  fan_out_warning_threshold: 160,
} as const;

/** The run columns RUN_FACTS_SQL selects. */
type RunColumns = Pick<
  RunRow,
  | "id"
  | "workflow_instance_id"
  | "namespace"
  | "run_number"
  | "workflow_class"
  | "workflow_type"
  | "business_key"
  | "visibility_labels"
  | "status"
  | "closed_reason"
  | "compatibility"
  | "connection"
  | "queue"
  | "started_at"
  | "closed_at"
  | "archived_at"
  | "archive_command_id"
  | "archive_reason"
  | "last_progress_at"
  | "created_at"
>;

export interface RunSummary {
  id: string;
  workflow_instance_id: string;
  namespace: string;
  run_number: number;
  is_current_run: number;
  class: string | null;
  workflow_type: string;
  compatibility: string | null;
  business_key: string | null;
  visibility_labels: string | null;
  status: string;
  status_bucket: string;
  closed_reason: string | null;
  connection: string | null;
  queue: string | null;
  started_at: number | null;
  sort_timestamp: number;
  sort_key: string;
  closed_at: number | null;
  archived_at: number | null;
  archive_command_id: string | null;
  archive_reason: string | null;
  duration_ms: number | null;
  wait_kind: string | null;
  wait_reason: string | null;
  wait_started_at: number | null;
  wait_deadline_at: number | null;
  open_wait_id: string | null;
  resume_source_kind: string | null;
  resume_source_id: string | null;
  next_task_at: number | null;
  next_task_id: string | null;
  next_task_type: string | null;
  next_task_status: string | null;
  next_task_lease_expires_at: number | null;
  liveness_state: string;
  liveness_reason: string;
  repair_blocked_reason: string | null;
  repair_attention: number;
  task_problem: number;
  exception_count: number;
  history_event_count: number;
  history_size_bytes: number;
  history_fan_out: number;
  continue_as_new_recommended: number;
  history_budget_pressure: string;
  created_at: number;
  updated_at: number;
}

/**
 * Computes (without writing) the summary row of a run, following `RunSummaryProjector`: wait, next
 * task, liveness in the documented evaluation order, repair blocking, task problem, history budget.
 * Only index-backed lookups scoped to this one run, so it stays cheap inside every transition.
 */
export function projectRunSummary(db: Db, runId: string, now: number): RunSummary | null {
  return project(db, runId, now, previousSummary(db, runId));
}

function previousSummary(db: Db, runId: string): RunSummary | undefined {
  return stmt(db, "SELECT * FROM workflow_run_summaries WHERE id = ?").get(runId) as RunSummary | undefined;
}

/** The run row plus the scalar facts the projection needs, fetched in one statement (each call costs more than these lookups). */
const RUN_FACTS_SQL = `SELECT r.id, r.workflow_instance_id, r.namespace, r.run_number, r.workflow_class, r.workflow_type, r.business_key, r.visibility_labels, r.status,
   r.closed_reason, r.compatibility, r.connection, r.queue, r.started_at, r.closed_at, r.archived_at, r.archive_command_id, r.archive_reason, r.last_progress_at, r.created_at,
   (SELECT 1 FROM workflow_instances i WHERE i.namespace = r.namespace AND i.id = r.workflow_instance_id) AS instance_exists,
   (SELECT i.current_run_id FROM workflow_instances i WHERE i.namespace = r.namespace AND i.id = r.workflow_instance_id) AS current_run_id,
   (SELECT MAX(e.sequence) FROM workflow_history_events e WHERE e.workflow_run_id = r.id) AS max_sequence,
   (SELECT COALESCE(SUM(LENGTH(COALESCE(e.payload, '')) + LENGTH(e.event_type)), 0) FROM workflow_history_events e
     WHERE e.workflow_run_id = r.id AND e.sequence > @counted) AS new_event_bytes,
   (SELECT COUNT(*) FROM workflow_failures f WHERE f.workflow_run_id = r.id) AS exception_count
 FROM workflow_runs r WHERE r.id = @id`;

interface RunFacts extends RunColumns {
  instance_exists: number | null;
  current_run_id: string | null;
  max_sequence: number | null;
  /** Bytes of the events after the ones the previous projection counted. */
  new_event_bytes: number;
  exception_count: number;
}

/** A run's history budget figures: the event count is the highest sequence. */
interface RunHistoryFacts {
  run: RunFacts;
  maxSeq: number;
  sizeBytes: number;
}

/**
 * The run's facts, with the history size grown by the events since the last projection (all of
 * them when history shrank, which only a rebuilt file can show); null when the run does not exist.
 */
function readRunFacts(db: Db, runId: string, prev: RunSummary | undefined): RunHistoryFacts | null {
  const prevCount = prev?.history_event_count ?? 0;
  let run = stmt(db, RUN_FACTS_SQL).get({ id: runId, counted: prevCount }) as RunFacts | undefined;
  if (!run) return null;
  const maxSeq = run.max_sequence ?? 0;
  let sizeBytes = prev?.history_size_bytes ?? 0;
  if (prevCount > maxSeq) {
    run = stmt(db, RUN_FACTS_SQL).get({ id: runId, counted: 0 }) as RunFacts;
    sizeBytes = 0;
  }
  return { run, maxSeq, sizeBytes: sizeBytes + run.new_event_bytes };
}

function repairBlockedReason(isCurrent: boolean, terminal: boolean, state: RunState): string | null {
  const live = state.liveness[0];
  if (!isCurrent) return "selected_run_not_current";
  if (terminal) return "run_closed";
  if (live === "repair_needed") return null;
  if (live === "workflow_replay_blocked") return state.replayBlockedTask ? null : "unsupported_history";
  if (live.includes("waiting_for_compatible_worker")) return "waiting_for_compatible_worker";
  return "repair_not_needed";
}

function historyPressure(events: number, sizeBytes: number, fanOut: number): string {
  const b = HISTORY_BUDGET;
  if (events >= b.event_threshold || sizeBytes >= b.size_bytes_threshold || fanOut >= b.fan_out_threshold)
    return "continue_as_new_recommended";
  if (
    events >= b.event_warning_threshold ||
    sizeBytes >= b.size_bytes_warning_threshold ||
    fanOut >= b.fan_out_warning_threshold
  )
    return "approaching";
  return "ok";
}

/** The summary columns copied from the run row (and the ones derived from it alone). */
function runColumns(run: RunFacts, isCurrent: boolean) {
  const sortTs = run.started_at ?? run.created_at;
  return {
    id: run.id,
    workflow_instance_id: run.workflow_instance_id,
    namespace: run.namespace,
    run_number: run.run_number,
    is_current_run: isCurrent ? 1 : 0,
    class: run.workflow_class,
    workflow_type: run.workflow_type,
    compatibility: run.compatibility,
    business_key: run.business_key,
    visibility_labels: run.visibility_labels,
    status: run.status,
    status_bucket: statusBucket(run.status),
    closed_reason: run.closed_reason,
    connection: run.connection,
    queue: run.queue,
    started_at: run.started_at,
    sort_timestamp: sortTs,
    sort_key: sortKey(sortTs, run.id),
    closed_at: run.closed_at,
    archived_at: run.archived_at,
    archive_command_id: run.archive_command_id,
    archive_reason: run.archive_reason,
    duration_ms: run.closed_at !== null && run.started_at !== null ? run.closed_at - run.started_at : null,
  };
}

/** The wait, next-task and liveness columns. */
function stateColumns({ wait, nextTask, liveness }: RunState) {
  return {
    wait_kind: wait?.kind ?? null,
    wait_reason: wait?.reason ?? null,
    wait_started_at: wait?.startedAt ?? null,
    wait_deadline_at: wait?.deadlineAt ?? null,
    open_wait_id: wait?.openWaitId ?? null,
    resume_source_kind: wait?.resumeKind ?? null,
    resume_source_id: wait?.resumeId ?? null,
    next_task_at: nextTask ? (nextTask.available_at ?? nextTask.created_at) : null,
    next_task_id: nextTask?.id ?? null,
    next_task_type: nextTask ? taskKind(nextTask) : null,
    next_task_status: nextTask?.status ?? null,
    next_task_lease_expires_at: nextTask?.lease_expires_at ?? null,
    liveness_state: liveness[0],
    liveness_reason: liveness[1],
  };
}

function project(db: Db, runId: string, now: number, prev: RunSummary | undefined): RunSummary | null {
  const facts = readRunFacts(db, runId, prev);
  if (!facts) return null;
  const { run, maxSeq, sizeBytes } = facts;
  const isCurrent = run.instance_exists === null || run.current_run_id === null || run.current_run_id === run.id;
  const terminal = isTerminal(run.status);
  const state = terminal ? closedRunState(run) : openRunState(db, runId, now);
  const repairBlocked = repairBlockedReason(isCurrent, terminal, state);
  const pressure = historyPressure(maxSeq, sizeBytes, state.fanOut);
  return {
    ...runColumns(run, isCurrent),
    ...stateColumns(state),
    repair_blocked_reason: repairBlocked,
    repair_attention:
      repairBlocked === "unsupported_history" || repairBlocked === "waiting_for_compatible_worker" ? 1 : 0,
    // Sticky: once a run needed transport repair, its badge stays ("Task History") as the engine's does.
    task_problem: state.taskProblem || (prev?.task_problem ?? 0) === 1 ? 1 : 0,
    exception_count: run.exception_count,
    history_event_count: maxSeq,
    history_size_bytes: sizeBytes,
    history_fan_out: state.fanOut,
    continue_as_new_recommended: pressure === "continue_as_new_recommended" ? 1 : 0,
    history_budget_pressure: pressure,
    created_at: prev?.created_at ?? now,
    updated_at: run.closed_at ?? run.last_progress_at ?? now,
  };
}

/** Fixed-width so that the string order of sort keys is the order of (sort_timestamp, run id). */
export function sortKey(sortTs: number, runId: string): string {
  return `${String(sortTs).padStart(15, "0")}:${runId}`;
}

const COLUMNS: (keyof RunSummary)[] = [
  "id",
  "workflow_instance_id",
  "namespace",
  "run_number",
  "is_current_run",
  "class",
  "workflow_type",
  "compatibility",
  "business_key",
  "visibility_labels",
  "status",
  "status_bucket",
  "closed_reason",
  "connection",
  "queue",
  "started_at",
  "sort_timestamp",
  "sort_key",
  "closed_at",
  "archived_at",
  "archive_command_id",
  "archive_reason",
  "duration_ms",
  "wait_kind",
  "wait_reason",
  "wait_started_at",
  "wait_deadline_at",
  "open_wait_id",
  "resume_source_kind",
  "resume_source_id",
  "next_task_at",
  "next_task_id",
  "next_task_type",
  "next_task_status",
  "next_task_lease_expires_at",
  "liveness_state",
  "liveness_reason",
  "repair_blocked_reason",
  "repair_attention",
  "task_problem",
  "exception_count",
  "history_event_count",
  "history_size_bytes",
  "history_fan_out",
  "continue_as_new_recommended",
  "history_budget_pressure",
  "created_at",
  "updated_at",
];

const INSERT_SQL = `INSERT INTO workflow_run_summaries (${COLUMNS.join(", ")}) VALUES (${COLUMNS.map((c) => `@${c}`).join(", ")})`;

/** Columns a refresh may change: `id` is the key and `created_at` keeps the first projection's time. */
const MUTABLE_COLUMNS = COLUMNS.filter((c) => c !== "id" && c !== "created_at");

/** Distinct changed-column sets seen in practice are a few dozen; past this the cache starts over. */
const MAX_UPDATE_SHAPES = 512;
const updateShapes = new WeakMap<Db, Map<string, Statement>>();

function updateStatement(db: Db, changed: (keyof RunSummary)[]): Statement {
  let shapes = updateShapes.get(db);
  if (!shapes) {
    shapes = new Map();
    updateShapes.set(db, shapes);
  }
  const key = changed.join(",");
  let s = shapes.get(key);
  if (!s) {
    if (shapes.size >= MAX_UPDATE_SHAPES) shapes.clear();
    s = db.prepare<unknown[]>(
      `UPDATE workflow_run_summaries SET ${changed.map((c) => `${c} = ?`).join(", ")} WHERE id = ?`,
    );
    shapes.set(key, s);
  }
  return s;
}

/**
 * Where a refresh may find the run's summary row without reading it: the engine's SummaryCache for
 * the current transition. `undefined` means "read it".
 */
export interface SummaryScope {
  lookup(runId: string): RunSummary | undefined;
  /** Runs `write` (which writes exactly `summary` as the run's row) as the cache's own write. */
  write(runId: string, summary: RunSummary, write: () => void): void;
}

/**
 * Rebuilds the `workflow_run_summaries` row of one run. The engine calls this inside the same
 * transaction as every state transition, so lists, liveness and metrics never lag the durable truth.
 * Only the columns whose value changed are written: the summary carries ten indexes, and SQLite
 * rewrites an index entry for every SET column it covers, changed or not.
 * Time-driven changes (a lease expiring with no transition) are picked up by the repair sweep,
 * which refreshes the affected runs (docs/decisions/0003-liveness-refresh.md).
 */
export function refreshRunSummary(db: Db, runId: string, now: number, scope?: SummaryScope): RunSummary | null {
  const prev = scope?.lookup(runId) ?? previousSummary(db, runId);
  const summary = project(db, runId, now, prev);
  if (!summary) return null;
  const write = (): void => {
    if (!prev) {
      stmt(db, INSERT_SQL).run(summary);
    } else {
      const changed = MUTABLE_COLUMNS.filter((c) => prev[c] !== summary[c]);
      if (changed.length > 0) updateStatement(db, changed).run(...changed.map((c) => summary[c]), runId);
    }
  };
  if (scope) scope.write(runId, summary, write);
  else write();
  // A new run supersedes its predecessor: the old run's is_current_run flag must follow.
  if (summary.is_current_run === 1 && summary.run_number > 1) {
    stmt(
      db,
      "UPDATE workflow_run_summaries SET is_current_run = 0, repair_blocked_reason = 'selected_run_not_current' WHERE namespace = ? AND workflow_instance_id = ? AND id != ? AND is_current_run = 1",
    ).run(summary.namespace, summary.workflow_instance_id, summary.id);
  }
  return summary;
}
