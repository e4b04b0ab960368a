import type { ExecutableTask, Incident } from "@/lib/kikwiflow/schemas";
import { failedJobWasFatal } from "@/lib/kikwiflow/incident-lineage";
import type { IncidentLineage } from "@/lib/kikwiflow/incident-lineage";

/**
 * The marker an incident row carries, the Kikwiflow counterpart of Durable Workflow's non-retryable
 * badge: `business` for an unhandled ProcessErrorException (UNHANDLED_BUSINESS_ERROR); `fatal` for a
 * FAILED_JOB the outbox shows was opened before the retries ran out (lib/kikwiflow/incident-lineage.ts);
 * an exhausted FAILED_JOB carries none: retries were tried.
 */
export type IncidentMarker = "fatal" | "business" | null;

export function incidentMarker(
  incident: Incident,
  task: ExecutableTask | null | undefined,
  lineage: IncidentLineage | null | undefined,
): IncidentMarker {
  if (incident.type === "UNHANDLED_BUSINESS_ERROR") return "business";
  if (incident.type !== "FAILED_JOB") return null;
  return failedJobWasFatal(lineage, task?.retryPolicy?.maxRetries) ? "fatal" : null;
}
