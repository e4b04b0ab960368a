import type { Db } from "../store/db";
import { newId } from "../ids";
import type { ScheduleSpec } from "./schedule-spec";
import { phpIso } from "./schedule-spec";
import type { JsonObject } from "./tx";
import { parseJson } from "./tx";

/** One `workflow_schedules` row (migration 12), times in epoch ms, JSON columns as text. */
export interface ScheduleRow {
  id: string;
  schedule_id: string;
  namespace: string;
  spec: string;
  action: string;
  status: "active" | "paused" | "deleted";
  overlap_policy: string;
  note: string | null;
  memo: string | null;
  search_attributes: string | null;
  jitter_seconds: number;
  max_runs: number | null;
  remaining_actions: number | null;
  fires_count: number;
  failures_count: number;
  recent_actions: string | null;
  buffered_actions: string | null;
  last_fired_at: number | null;
  next_fire_at: number | null;
  latest_workflow_instance_id: string | null;
  paused_at: number | null;
  deleted_at: number | null;
  last_skip_reason: string | null;
  last_skipped_at: number | null;
  skipped_trigger_count: number;
  created_at: number;
  updated_at: number;
}

/** `ScheduleOverlapPolicy` (workflow src/V2/Enums/ScheduleOverlapPolicy.php@797aa6f), in `OVERLAP_POLICIES` order. */
export const OVERLAP_POLICIES = [
  "skip",
  "buffer_one",
  "buffer_all",
  "cancel_other",
  "terminate_other",
  "allow_all",
] as const;
export type OverlapPolicy = (typeof OVERLAP_POLICIES)[number];

export const iso = (ms: number | null | undefined): string | null => (ms == null ? null : phpIso(ms));

export function specOf(row: ScheduleRow): ScheduleSpec {
  return parseJson<ScheduleSpec>(row.spec) ?? {};
}

export function actionOf(row: ScheduleRow): JsonObject {
  return parseJson<JsonObject>(row.action) ?? {};
}

export function listOf<T = JsonObject>(text: string | null): T[] {
  const v = parseJson<T[]>(text);
  return Array.isArray(v) ? v : [];
}

/** The live (not deleted) schedule with this id, the one `findOrFail` answers for. */
export function liveSchedule(db: Db, namespace: string, scheduleId: string): ScheduleRow | undefined {
  return db
    .prepare("SELECT * FROM workflow_schedules WHERE namespace = ? AND schedule_id = ? AND status <> 'deleted'")
    .get(namespace, scheduleId) as ScheduleRow | undefined;
}

/** Any schedule with this id, deleted ones included: the history route reads those too. */
export function anySchedule(db: Db, namespace: string, scheduleId: string): ScheduleRow | undefined {
  return db
    .prepare("SELECT * FROM workflow_schedules WHERE namespace = ? AND schedule_id = ?")
    .get(namespace, scheduleId) as ScheduleRow | undefined;
}

export function scheduleById(db: Db, id: string): ScheduleRow {
  const row = db.prepare("SELECT * FROM workflow_schedules WHERE id = ?").get(id) as ScheduleRow | undefined;
  if (!row) throw new Error(`schedule ${id} vanished inside a transaction`);
  return row;
}

/** Writes the given columns (JSON values already serialised) and stamps `updated_at`. */
export function saveSchedule(db: Db, id: string, now: number, fields: Partial<ScheduleRow>): void {
  const keys = Object.keys(fields);
  const sets = [...keys.map((k) => `${k} = ?`), "updated_at = ?"].join(", ");
  db.prepare(`UPDATE workflow_schedules SET ${sets} WHERE id = ?`).run(
    ...keys.map((k) => (fields as Record<string, unknown>)[k] ?? null),
    now,
    id,
  );
}

/** `WorkflowScheduleHistoryEvent::scheduleSnapshot`: the schedule as it stood, nulls dropped. */
function snapshot(row: ScheduleRow): JsonObject {
  const s: JsonObject = {
    id: row.id,
    schedule_id: row.schedule_id,
    namespace: row.namespace,
    status: row.status,
    overlap_policy: row.overlap_policy,
    next_fire_at: iso(row.next_fire_at),
    last_fired_at: iso(row.last_fired_at),
    paused_at: iso(row.paused_at),
    deleted_at: iso(row.deleted_at),
    last_skip_reason: row.last_skip_reason,
    last_skipped_at: iso(row.last_skipped_at),
    fires_count: row.fires_count,
    skipped_trigger_count: row.skipped_trigger_count,
    latest_workflow_instance_id: row.latest_workflow_instance_id,
    note: row.note,
  };
  return Object.fromEntries(Object.entries(s).filter(([, v]) => v !== null && v !== undefined));
}

export type ScheduleEventType =
  | "ScheduleCreated"
  | "SchedulePaused"
  | "ScheduleResumed"
  | "ScheduleUpdated"
  | "ScheduleTriggered"
  | "ScheduleTriggerSkipped"
  | "ScheduleDeleted";

/** The control-plane command context recorded with API-made transitions (`CommandContext::attributes`). */
export type CommandContextAttributes = { source: "control_plane"; context: JsonObject };

/**
 * `ScheduleManager::recordScheduleEvent` + `WorkflowScheduleHistoryEvent::record`: the next
 * sequence of this schedule, the payload with `command_context` (when the API made it) and the
 * snapshot under `schedule`; run and instance ids lifted into their columns.
 */
export function recordScheduleEvent(
  db: Db,
  now: number,
  row: ScheduleRow,
  type: ScheduleEventType,
  payload: JsonObject,
  context: CommandContextAttributes | null,
): void {
  const body: JsonObject = { ...payload };
  if (context && !("command_context" in body)) body.command_context = context;
  if (!("schedule" in body)) body.schedule = snapshot(row);
  const { seq } = db
    .prepare(
      "SELECT COALESCE(MAX(sequence), 0) + 1 AS seq FROM workflow_schedule_history_events WHERE workflow_schedule_id = ?",
    )
    .get(row.id) as { seq: number };
  const str = (v: unknown) => (typeof v === "string" && v !== "" ? v : null);
  db.prepare(
    `INSERT INTO workflow_schedule_history_events (id, workflow_schedule_id, schedule_id, namespace, sequence, event_type, payload, workflow_instance_id, workflow_run_id, recorded_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    newId(now).toLowerCase(),
    row.id,
    row.schedule_id,
    row.namespace,
    seq,
    type,
    JSON.stringify(body),
    str(payload.workflow_instance_id),
    str(payload.workflow_run_id),
    now,
  );
}
