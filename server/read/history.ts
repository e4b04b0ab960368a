import type { Db } from "../store/db";
import type { EngineNotifier } from "../engine/notifier";
import { readHistoryPage } from "../engine/history";
import type { Json } from "./format";
import { isTerminal } from "../engine/rows";

export interface HistoryQuery {
  runId: string;
  pageSize: number;
  pageToken: string | null;
  waitNewEvent: boolean;
}

function page(db: Db, q: HistoryQuery): Json & { events: Json[]; next_page_token: string | null } {
  const p = readHistoryPage(db, q.runId, q.pageToken, q.pageSize);
  return {
    events: p.events.map((e) => ({
      sequence: e.sequence,
      event_type: e.event_type,
      timestamp: e.timestamp,
      payload: e.payload,
    })),
    next_page_token: p.next_page_token,
  };
}

/**
 * A keyset page of `/history`. With `wait_new_event` and nothing after the cursor on an open run,
 * the request is held until the engine's notifier reports a commit that appended to this run,
 * the timeout passes, or the client goes away; then the page is read again.
 */
export async function historyPage(
  db: Db,
  notifier: EngineNotifier,
  q: HistoryQuery,
  timeoutMs: number,
  signal: AbortSignal,
): Promise<Json> {
  const first = page(db, q);
  if (!q.waitNewEvent || first.events.length > 0) return first;
  const status = (
    db.prepare("SELECT status FROM workflow_runs WHERE id = ?").get(q.runId) as { status: string } | undefined
  )?.status;
  if (!status || isTerminal(status)) return first;
  await new Promise<void>((resolve) => {
    const onHistory = (runId: string): void => {
      if (runId === q.runId) done();
    };
    const done = (): void => {
      clearTimeout(timer);
      notifier.off("history", onHistory);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, timeoutMs);
    notifier.on("history", onHistory);
    signal.addEventListener("abort", done, { once: true });
  });
  return page(db, q);
}
