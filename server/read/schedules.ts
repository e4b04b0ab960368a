import type { ScheduleRow } from "../engine/schedule-rows";
import { actionOf, iso, listOf, specOf } from "../engine/schedule-rows";
import { normalizeActionTimeouts } from "../engine/schedules";
import type { Db } from "../store/db";

/**
 * Schedule reads in the real server's shapes: ScheduleController `index`/`show`/`history`
 * (durable-workflow/server app/Http/Controllers/Api/ScheduleController.php@11d35b7) over
 * WorkflowSchedule `toListItem`/`toDetail` (durable-workflow/workflow
 * src/V2/Models/WorkflowSchedule.php@797aa6f). Fixtures: lib/dw/fixtures/schedules.md.
 */

const json = (text: string | null): unknown => (text === null ? null : JSON.parse(text));

type ListRow = Pick<
  ScheduleRow,
  | "schedule_id"
  | "status"
  | "next_fire_at"
  | "last_fired_at"
  | "overlap_policy"
  | "note"
  | "fires_count"
  | "jitter_seconds"
  | "max_runs"
  | "remaining_actions"
> & { workflow_type: unknown };

/** `formatListItem`: `toListItem` + `fires_count`, and jitter / max_runs / remaining only when set. */
function listItem(row: ListRow): Record<string, unknown> {
  const item: Record<string, unknown> = {
    schedule_id: row.schedule_id,
    workflow_type: row.workflow_type ?? null,
    status: row.status,
    paused: row.status === "paused",
    next_fire: iso(row.next_fire_at),
    last_fire: iso(row.last_fired_at),
    overlap_policy: row.overlap_policy,
    note: row.note,
    fires_count: row.fires_count,
  };
  if (row.jitter_seconds > 0) item.jitter_seconds = row.jitter_seconds;
  if (row.max_runs !== null) item.max_runs = row.max_runs;
  if (row.remaining_actions !== null) item.remaining_actions = row.remaining_actions;
  return item;
}

/**
 * `index`: every live schedule of the namespace, newest first, in one page (the real route has no
 * filters or paging). Only the listed columns are read, the type straight out of the action's JSON:
 * whole rows cost several times more over 10,000 schedules.
 */
export function listSchedules(
  db: Db,
  namespace: string,
): { schedules: Record<string, unknown>[]; next_page_token: null } {
  const rows = db
    .prepare(
      `SELECT schedule_id, status, next_fire_at, last_fired_at, overlap_policy, note, fires_count, jitter_seconds,
              max_runs, remaining_actions, json_extract(action, '$.workflow_type') AS workflow_type
         FROM workflow_schedules WHERE namespace = ? AND status <> 'deleted' ORDER BY created_at DESC, id DESC`,
    )
    .all(namespace) as ListRow[];
  return { schedules: rows.map(listItem), next_page_token: null };
}

/** `formatDetail`. */
export function scheduleDetail(row: ScheduleRow): Record<string, unknown> {
  return {
    schedule_id: row.schedule_id,
    spec: specOf(row),
    action: normalizeActionTimeouts(actionOf(row)),
    overlap_policy: row.overlap_policy,
    state: { status: row.status, paused: row.status === "paused", note: row.note },
    info: {
      next_fire: iso(row.next_fire_at),
      last_fire: iso(row.last_fired_at),
      fires_count: row.fires_count,
      failures_count: row.failures_count,
      recent_actions: listOf(row.recent_actions),
      buffered_actions: listOf(row.buffered_actions),
      skipped_trigger_count: row.skipped_trigger_count,
      last_skip_reason: row.last_skip_reason,
      last_skipped_at: iso(row.last_skipped_at),
    },
    memo: json(row.memo),
    search_attributes: json(row.search_attributes),
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
    jitter_seconds: row.jitter_seconds,
    max_runs: row.max_runs,
    remaining_actions: row.remaining_actions,
    latest_workflow_instance_id: row.latest_workflow_instance_id,
  };
}

interface HistoryEventRow {
  id: string;
  sequence: number;
  event_type: string;
  payload: string;
  workflow_instance_id: string | null;
  workflow_run_id: string | null;
  recorded_at: number;
}

/** `history`: events after `afterSequence`, `limit` of them, `next_cursor` the last sequence when more follow. */
export function scheduleHistoryPage(
  db: Db,
  row: ScheduleRow,
  limit: number,
  afterSequence: number | null,
): Record<string, unknown> {
  const events = db
    .prepare(
      "SELECT * FROM workflow_schedule_history_events WHERE workflow_schedule_id = ? AND sequence > ? ORDER BY sequence LIMIT ?",
    )
    .all(row.id, afterSequence ?? -1, limit + 1) as HistoryEventRow[];
  const hasMore = events.length > limit;
  const page = events.slice(0, limit);
  return {
    schedule_id: row.schedule_id,
    namespace: row.namespace,
    events: page.map((e) => {
      const payload = json(e.payload);
      return {
        id: e.id,
        sequence: e.sequence,
        event_type: e.event_type,
        payload: payload && typeof payload === "object" && !Array.isArray(payload) ? payload : [],
        workflow_instance_id: e.workflow_instance_id,
        workflow_run_id: e.workflow_run_id,
        recorded_at: iso(e.recorded_at),
      };
    }),
    next_cursor: hasMore && page.length > 0 ? page[page.length - 1]!.sequence : null,
    has_more: hasMore,
  };
}

/** The schedule that started a run, from the schedule's own audit stream (the run's `ScheduleTriggered` names it too). */
export function scheduleOfRun(db: Db, runId: string): { schedule_id: string; namespace: string } | null {
  const row = db
    .prepare(
      "SELECT schedule_id, namespace FROM workflow_schedule_history_events WHERE workflow_run_id = ? AND event_type = 'ScheduleTriggered' LIMIT 1",
    )
    .get(runId) as { schedule_id: string; namespace: string } | undefined;
  return row ?? null;
}
