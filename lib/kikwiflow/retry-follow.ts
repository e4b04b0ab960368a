import type { Incident } from "./schemas";

/**
 * What became of a retried task after the retry was confirmed. The engine keeps the task's id across
 * a retry and every later failure opens a new incident naming that id as `executionId`
 * (kikwi-core/.../execution/FailureHandler.java@3b62f35, `task.toBuilder()` and `new Incident(…,
 * task.id(), …)`), so an incident on the same task created after the retried one is the task failing
 * again. The confirmation stays the screen's word only while no such failure is seen. Pure.
 */

/** What the retry was about: the incident retried, its task, and when the retried incident opened. */
export interface RetriedTask {
  readonly incidentId: string;
  readonly taskId: string | null;
  readonly incidentCreatedAt: string | null;
}

export type RetryFollowUp =
  /** No new failure of the task seen: the confirmation still describes the engine. */
  | { readonly kind: "holding" }
  /** The newest incident the task opened after the retried one: when, with what error, its status. */
  | { readonly kind: "failed_again"; readonly incident: Incident };

/** ISO-8601 instants from one engine compare as strings; an unknown time is never "after". */
const after = (a: string | null | undefined, b: string | null | undefined) => !!a && (!b || a > b);

export function followRetry(retried: RetriedTask, incidents: readonly Incident[]): RetryFollowUp {
  if (retried.taskId === null) return { kind: "holding" };
  const newer = incidents
    .filter(
      (incident) =>
        incident.executionId === retried.taskId &&
        incident.id !== retried.incidentId &&
        after(incident.createdAt, retried.incidentCreatedAt),
    )
    .sort((a, b) => (b.createdAt ?? "").localeCompare(a.createdAt ?? ""));
  const latest = newer[0];
  // Only incidents, never the task's status: a snapshot read before the retry still shows it in ERROR.
  return latest ? { kind: "failed_again", incident: latest } : { kind: "holding" };
}
