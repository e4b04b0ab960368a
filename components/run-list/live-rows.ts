/**
 * "Lists never jump": the rows on screen are a snapshot. A refresh updates rows already shown in
 * place (status, close time) and only counts rows that are new; they appear when the operator asks.
 */

export interface Keyed {
  run_id: string;
}

export interface LiveRows<T extends Keyed> {
  rows: T[];
  /** Rows in the latest answer that the snapshot does not show. */
  pending: T[];
}

export function mergeLive<T extends Keyed>(shown: readonly T[], latest: readonly T[]): LiveRows<T> {
  const fresh = new Map(latest.map((row) => [row.run_id, row] as const));
  const shownIds = new Set(shown.map((row) => row.run_id));
  return {
    rows: shown.map((row) => fresh.get(row.run_id) ?? row),
    pending: latest.filter((row) => !shownIds.has(row.run_id)),
  };
}
