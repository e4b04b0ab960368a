import { isoMicros } from "../clock";
import type { Db } from "../store/db";
import type { HistoryRow } from "./rows";

/** One history event as the worker plane returns it. */
export interface HistoryEventView {
  id: string;
  sequence: number;
  event_type: string;
  timestamp: string | null;
  payload: Record<string, unknown>;
  workflow_task_id: string | null;
  workflow_command_id: string | null;
}

export interface HistoryPage {
  events: HistoryEventView[];
  total: number;
  next_page_token: string | null;
}

export function encodePageToken(sequence: number): string {
  return Buffer.from(String(sequence)).toString("base64");
}

/** Tokens are `base64(last sequence)`; a malformed one restarts from the beginning, as the real server does. */
export function decodePageToken(token: string | null | undefined): number {
  if (!token) return 0;
  const n = Number(Buffer.from(token, "base64").toString("utf8"));
  return Number.isInteger(n) && n > 0 ? n : 0;
}

export function toEventView(r: HistoryRow): HistoryEventView {
  return {
    id: r.id,
    sequence: r.sequence,
    event_type: r.event_type,
    timestamp: isoMicros(r.recorded_at),
    payload: r.payload ? (JSON.parse(r.payload) as Record<string, unknown>) : {},
    workflow_task_id: r.workflow_task_id,
    workflow_command_id: r.workflow_command_id,
  };
}

/**
 * A keyset page of a run's history: events with sequence > token, at most `pageSize`. `known` is a
 * committed prefix of the run's history (index i holds sequence i + 1, see HistoryCache): the part
 * of the page it covers is not read again.
 */
export function readHistoryPage(
  db: Db,
  runId: string,
  afterToken: string | null | undefined,
  pageSize: number,
  known: readonly HistoryEventView[] = [],
): HistoryPage {
  const after = decodePageToken(afterToken);
  const reused = after < known.length ? known.slice(after, after + pageSize + 1) : [];
  const missing = pageSize + 1 - reused.length;
  const rows =
    missing > 0
      ? (db
          .prepare(
            "SELECT id, sequence, event_type, payload, workflow_task_id, workflow_command_id, recorded_at FROM workflow_history_events WHERE workflow_run_id = ? AND sequence > ? ORDER BY sequence LIMIT ?",
          )
          .all(runId, after + reused.length, missing) as HistoryRow[])
      : [];
  const events = rows.length === 0 ? reused : reused.concat(rows.map(toEventView));
  const total = (
    db.prepare("SELECT COUNT(*) AS n FROM workflow_history_events WHERE workflow_run_id = ?").get(runId) as {
      n: number;
    }
  ).n;
  const more = events.length > pageSize;
  const page = more ? events.slice(0, pageSize) : events;
  const last = page.at(-1);
  return { events: page, total, next_page_token: more && last ? encodePageToken(last.sequence) : null };
}
