import type { ExecutableTask, Incident } from "@/lib/kikwiflow/schemas";

/**
 * The marker an incident row carries, the Kikwiflow counterpart of Durable Workflow's non-retryable
 * badge: `business` for an unhandled ProcessErrorException (UNHANDLED_BUSINESS_ERROR); `fatal` for a
 * FAILED_JOB its task opened before using up its policy's executions — the engine skips retries only
 * for a configured fatal exception (kikwi-core/.../execution/FailureHandler.java@3b62f35). An
 * exhausted FAILED_JOB carries none: retries were tried.
 */
export type IncidentMarker = "fatal" | "business" | null;

export function incidentMarker(incident: Incident, task: ExecutableTask | null | undefined): IncidentMarker {
  if (incident.type === "UNHANDLED_BUSINESS_ERROR") return "business";
  if (incident.type !== "FAILED_JOB" || !task?.retryPolicy) return null;
  const executions = task.executions ?? 0;
  return executions > 0 && executions < task.retryPolicy.maxRetries ? "fatal" : null;
}
