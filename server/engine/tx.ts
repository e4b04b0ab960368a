import type { Db } from "../store/db";
import { isoMicros } from "../clock";
import { newId } from "../ids";
import type { CountedTable } from "./statement-cache";
import { writeCount } from "./statement-cache";
import type { HistoryEventView } from "./history";
import type { TaskKind } from "./notifier";
import type { SummaryCacheEntry } from "./summary-cache";
import type { ActivityRow, AttemptRow, InstanceRow, RunRow, TaskRow } from "./rows";

/** The `{codec, blob}` payload envelope; the engine stores and returns blobs opaquely. */
export interface PayloadEnvelope {
  codec: string;
  blob: string;
}

export type JsonObject = Record<string, unknown>;

/** Drops `undefined` keys so they never reach stored JSON; explicit nulls are kept. */
function compact(obj: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(obj)) if (v !== undefined) out[k] = v;
  return out;
}

/** Drops null and undefined keys (the snapshot convention of the real engine). */
export function dropNulls(obj: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(obj)) if (v !== null && v !== undefined) out[k] = v;
  return out;
}

export function parseJson<T>(text: string | null): T | null {
  return text === null ? null : (JSON.parse(text) as T);
}

/**
 * One state transition: everything written through a Tx commits in one SQLite transaction. It
 * records which runs changed (their summary is rebuilt before commit) and which wake-ups to emit
 * after commit.
 */
export interface LeaseConfig {
  /** Workflow (and timer) task lease; the real engine's workflows.v2.workflow_task_lease_seconds, default 300 s. */
  workflowTaskMs: number;
  /** Activity attempt lease, 5 minutes in Durable Workflow; renewed by every heartbeat. */
  activityMs: number;
}

export const DEFAULT_LEASES: LeaseConfig = { workflowTaskMs: 300_000, activityMs: 300_000 };

export class Tx {
  readonly touchedRuns = new Set<string>();
  readonly historyRuns = new Set<string>();
  readonly readyKeys = new Map<string, { namespace: string; queue: string; kind: TaskKind }>();
  /** Summaries this transition wrote, for the SummaryCache once its savepoint is released. */
  readonly summaryStage = new Map<string, SummaryCacheEntry>();
  /** History prefixes read in this transition, published to the HistoryCache once it commits. */
  readonly historyOffers = new Map<string, readonly HistoryEventView[]>();

  constructor(
    readonly db: Db,
    readonly now: number,
    readonly leases: LeaseConfig = DEFAULT_LEASES,
  ) {}

  /** Rows read in this transition, by table, valid while no statement has written that table since. */
  private readonly rows = new Map<CountedTable, { writes: number | null; byId: Map<string, unknown> }>();

  private cachedRow<T>(table: CountedTable, id: string): T | undefined {
    const writes = writeCount(this.db, table);
    let entry = this.rows.get(table);
    if (!entry || entry.writes !== writes) {
      entry = { writes, byId: new Map() };
      this.rows.set(table, entry);
    } else if (entry.byId.has(id)) {
      return entry.byId.get(id) as T;
    }
    const row = this.db.prepare(`SELECT * FROM ${table} WHERE id = ?`).get(id) as T | undefined;
    if (row && writes !== null) entry.byId.set(id, row);
    return row;
  }

  run(runId: string): RunRow | undefined {
    return this.cachedRow<RunRow>("workflow_runs", runId);
  }

  mustRun(runId: string): RunRow {
    const run = this.run(runId);
    if (!run) throw new Error(`run ${runId} vanished inside a transaction`);
    return run;
  }

  instance(namespace: string, id: string): InstanceRow | undefined {
    return this.db.prepare("SELECT * FROM workflow_instances WHERE namespace = ? AND id = ?").get(namespace, id) as
      InstanceRow | undefined;
  }

  task(id: string): TaskRow | undefined {
    return this.cachedRow<TaskRow>("workflow_tasks", id);
  }

  activity(id: string): ActivityRow | undefined {
    return this.cachedRow<ActivityRow>("activity_executions", id);
  }

  attempt(id: string): AttemptRow | undefined {
    return this.cachedRow<AttemptRow>("activity_attempts", id);
  }

  touch(runId: string): void {
    this.touchedRuns.add(runId);
  }

  /** Next value of the run's step/command counter (workflow step sequences and command sequences). */
  nextCommandSequence(runId: string): number {
    const row = this.db
      .prepare(
        "UPDATE workflow_runs SET last_command_sequence = last_command_sequence + 1, updated_at = ? WHERE id = ? RETURNING last_command_sequence",
      )
      .get(this.now, runId) as { last_command_sequence: number } | undefined;
    if (!row) throw new Error(`run ${runId} vanished inside a transaction`);
    return row.last_command_sequence;
  }

  /** Appends one typed history event; sequence = last_history_sequence + 1 (v2-model §3). */
  appendEvent(
    runId: string,
    eventType: string,
    payload: JsonObject,
    links: { taskId?: string | null; commandId?: string | null } = {},
  ): number {
    const row = this.db
      .prepare(
        "UPDATE workflow_runs SET last_history_sequence = last_history_sequence + 1, last_progress_at = ?, updated_at = ? WHERE id = ? RETURNING last_history_sequence",
      )
      .get(this.now, this.now, runId) as { last_history_sequence: number } | undefined;
    if (!row) throw new Error(`run ${runId} vanished inside a transaction`);
    const sequence = row.last_history_sequence;
    this.db
      .prepare(
        `INSERT INTO workflow_history_events (id, workflow_run_id, sequence, event_type, payload, workflow_task_id, workflow_command_id, recorded_at, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        newId(this.now),
        runId,
        sequence,
        eventType,
        JSON.stringify(compact(payload)),
        links.taskId ?? null,
        links.commandId ?? null,
        this.now,
        this.now,
        this.now,
      );
    this.historyRuns.add(runId);
    this.touch(runId);
    return sequence;
  }

  /** Creates a durable task row, `ready` at `availableAt`, and schedules the matching wake-up. */
  createTask(
    run: RunRow,
    kind: "workflow" | "activity" | "timer",
    payload: JsonObject,
    opts: { availableAt?: number; queue?: string | null; attemptCount?: number } = {},
  ): string {
    const id = newId(this.now);
    const queue = opts.queue ?? run.queue ?? "default";
    this.db
      .prepare(
        `INSERT INTO workflow_tasks (id, workflow_run_id, namespace, task_type, status, payload, connection, queue, available_at, attempt_count, created_at, updated_at)
         VALUES (?, ?, ?, ?, 'ready', ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        id,
        run.id,
        run.namespace,
        kind,
        JSON.stringify(compact(payload)),
        run.connection,
        queue,
        opts.availableAt ?? this.now,
        opts.attemptCount ?? 0,
        this.now,
        this.now,
      );
    if (kind !== "timer")
      this.readyKeys.set(`${run.namespace}\u0000${queue}\u0000${kind}`, { namespace: run.namespace, queue, kind });
    this.touch(run.id);
    return id;
  }

  /**
   * Ensures the run has a workflow task to resume it. A ready one already pending absorbs the new
   * reason (the worker replays the whole history anyway); a leased one does not, because its worker
   * may have read history before this event, so a fresh task follows it. Nor does an update's task:
   * its worker answers only the update, so the outcome would never be acted on. The poll leases one
   * workflow task of a run at a time, so a second ready task waits its turn.
   */
  ensureWorkflowTask(run: RunRow, resume: JsonObject): string {
    const ready = this.db
      .prepare(
        `SELECT id FROM workflow_tasks WHERE workflow_run_id = ? AND task_type = 'workflow' AND status = 'ready'
          AND json_extract(payload, '$.workflow_update_id') IS NULL ORDER BY created_at LIMIT 1`,
      )
      .get(run.id) as { id: string } | undefined;
    if (ready) return ready.id;
    return this.createTask(run, "workflow", resume);
  }

  markTaskReady(task: TaskRow): void {
    if (task.task_type === "timer") return;
    const kind = task.task_type === "workflow" ? "workflow" : "activity";
    const queue = task.queue ?? "default";
    this.readyKeys.set(`${task.namespace}\u0000${queue}\u0000${kind}`, { namespace: task.namespace, queue, kind });
  }

  /**
   * Expired leases of one task kind (at most 500 a pass): once `release` has let go of what a task
   * held, it is ready again with repair_count + 1, so the late worker's completion is refused.
   */
  expireLeases(taskType: "workflow" | "activity", release?: (task: TaskRow) => void): number {
    const tasks = this.db
      .prepare(
        "SELECT * FROM workflow_tasks INDEXED BY workflow_tasks_lease WHERE task_type = ? AND status = 'leased' AND lease_expires_at IS NOT NULL AND lease_expires_at <= ? LIMIT 500",
      )
      .all(taskType, this.now) as TaskRow[];
    for (const task of tasks) {
      release?.(task);
      this.db
        .prepare(
          "UPDATE workflow_tasks SET status = 'ready', available_at = ?, lease_owner = NULL, leased_at = NULL, lease_expires_at = NULL, repair_count = repair_count + 1, updated_at = ? WHERE id = ?",
        )
        .run(this.now, this.now, task.id);
      this.markTaskReady(task);
      this.touch(task.workflow_run_id);
    }
    return tasks.length;
  }
}

/** The task snapshot embedded in history payloads (`task` key, nulls dropped; v2-model §3). */
/** `WorkflowHistoryEvent::taskSnapshot` (workflow src/V2/Models/WorkflowHistoryEvent.php@8dc90d64): its keys, nulls dropped. */
export function taskSnapshot(task: TaskRow): JsonObject {
  return dropNulls({
    id: task.id,
    type: task.task_type,
    status: task.status,
    available_at: isoMicros(task.available_at),
    leased_at: isoMicros(task.leased_at),
    lease_owner: task.lease_owner,
    lease_expires_at: isoMicros(task.lease_expires_at),
    attempt_count: task.attempt_count,
    repair_count: task.repair_count,
    connection: task.connection,
    queue: task.queue,
    compatibility: task.compatibility,
    last_dispatch_attempt_at: isoMicros(task.last_dispatch_attempt_at),
    last_dispatched_at: isoMicros(task.last_dispatched_at),
    last_dispatch_error: task.last_dispatch_error,
    last_claim_failed_at: isoMicros(task.last_claim_failed_at),
    last_claim_error: task.last_claim_error,
    repair_available_at: isoMicros(task.repair_available_at),
  });
}

/** The codec a payload without one is read with (the engine's `CodecRegistry::defaultCodec()`). */
export const DEFAULT_PAYLOAD_CODEC = "avro";

export function envelope(codec: string | null, blob: string | null): PayloadEnvelope | null {
  return blob === null ? null : { codec: codec ?? DEFAULT_PAYLOAD_CODEC, blob };
}
