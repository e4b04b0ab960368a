import type { Incident, ProcessInstanceSnapshot, ProcessInstanceSummary } from "./schemas";

/**
 * The instances list with what each instance's incidents say. The engine's search knows nothing of
 * incidents (ProcessInstanceSearchRequest@3b62f35 has no such filter), so the console counts them per
 * row, and the "open incidents" filter is answered from a walk of the ACTIVE instances (an incident
 * stays OPEN only on a live instance; a finished one is deleted with its incidents). Pure.
 */

export interface IncidentCounts {
  readonly open: number;
  readonly total: number;
}

export function incidentCounts(incidents: readonly Incident[]): IncidentCounts {
  return { open: incidents.filter((i) => i.status === "OPEN").length, total: incidents.length };
}

/** A search text matches an instance by its id or its business key, exactly (the engine's own match). */
export function matchesSearch(instance: ProcessInstanceSummary, q: string | null): boolean {
  return q === null || instance.id === q || instance.businessKey === q;
}

export interface IncidentPage {
  readonly content: ProcessInstanceSummary[];
  readonly totalElements: number;
  readonly totalPages: number;
  readonly page: number;
  readonly size: number;
  readonly incidents: Record<string, IncidentCounts>;
}

/**
 * The walked instances that have an OPEN incident, newest first (as the list is), matched by `q`,
 * as one 0-based page of `size`.
 */
export function openIncidentPage(
  snapshots: readonly ProcessInstanceSnapshot[],
  { page, size, q }: { page: number; size: number; q: string | null },
): IncidentPage {
  const failing = snapshots
    .filter((s) => s.incidents.some((i) => i.status === "OPEN") && matchesSearch(s.instance, q))
    .sort((a, b) => (b.instance.startedAt ?? "").localeCompare(a.instance.startedAt ?? ""));
  const shown = failing.slice(page * size, page * size + size);
  return {
    content: shown.map((s) => s.instance),
    totalElements: failing.length,
    totalPages: Math.ceil(failing.length / size),
    page,
    size,
    incidents: Object.fromEntries(shown.map((s) => [s.instance.id, incidentCounts(s.incidents)])),
  };
}
