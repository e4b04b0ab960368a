/**
 * "Lists never jump": the rows on screen are a snapshot. A refresh updates rows already shown in
 * place (status, close time) and only counts rows that are new; they appear when the operator asks.
 * A shown row the latest answer no longer holds has left the list (terminated off the "running" tab,
 * say) and goes, so the rows and the count agree — unless newer runs merely pushed it off a full page.
 */

export interface Keyed {
  run_id: string;
  started_at?: string | null;
}

export interface LiveRows<T extends Keyed> {
  rows: T[];
  /** Rows in the latest answer that the snapshot does not show. */
  pending: T[];
}

export interface LatestPage<T extends Keyed> {
  rows: readonly T[];
  /** The server has a next page: the answer is one full page of a longer list. */
  more?: boolean;
}

/** The list is newest started first: a row older than a full page's last one may sit on the next page. */
function maybeOnNextPage<T extends Keyed>(row: T, latest: LatestPage<T>): boolean {
  const last = latest.rows.at(-1);
  if (!latest.more || !last) return false;
  return (row.started_at ?? "") <= (last.started_at ?? "");
}

export function mergeLive<T extends Keyed>(shown: readonly T[], latest: LatestPage<T>): LiveRows<T> {
  const fresh = new Map(latest.rows.map((row) => [row.run_id, row] as const));
  const shownIds = new Set(shown.map((row) => row.run_id));
  return {
    rows: shown.flatMap((row) => {
      const now = fresh.get(row.run_id);
      if (now) return [now];
      return maybeOnNextPage(row, latest) ? [row] : [];
    }),
    pending: latest.rows.filter((row) => !shownIds.has(row.run_id)),
  };
}
