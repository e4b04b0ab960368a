/**
 * Whether a closed run is archived, from describe: `archived_at` / `archive_reason` where the server
 * sends them, else `actions.can_archive` (false on a closed run only once it is archived: the server
 * offers archive for every closed run not yet archived). An open run is never archived.
 */
export interface ArchiveInput {
  is_terminal: boolean;
  archived_at?: unknown;
  archive_reason?: unknown;
  actions?: { can_archive?: boolean | null } | null;
}

export interface ArchiveState {
  /** When, if the server said; null when only `can_archive` told. */
  at: string | null;
  reason: string | null;
}

export function archiveState(run: ArchiveInput): ArchiveState | null {
  if (!run.is_terminal) return null;
  const at = typeof run.archived_at === "string" && run.archived_at !== "" ? run.archived_at : null;
  const reason = typeof run.archive_reason === "string" && run.archive_reason !== "" ? run.archive_reason : null;
  if (at !== null) return { at, reason };
  return run.actions?.can_archive === false ? { at: null, reason } : null;
}
