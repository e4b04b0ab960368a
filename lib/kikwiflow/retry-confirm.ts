import type { ExecutableTask, Incident } from "./schemas";

/**
 * Durable confirmation of retry-incident, the Kikwiflow counterpart of lib/confirm/confirm.ts: the
 * engine's 204 only says the command was taken; the console calls the retry done once a re-read shows
 * its effect. `PUT /incidents/{id}/retry` resolves the incident and, atomically, puts its task back to
 * PENDING with `retries = retryPolicy.maxRetries` (fallback 3) and the error cleared
 * (kikwi-core/.../KikwiflowEngine.java@3b62f35). The engine may pick the task up within one
 * acquisition tick, so a task that already ran again (more executions than before the retry) also
 * proves the retry; an instance that is gone (404) finished and was deleted from the live store.
 * Pure and browser-safe.
 */

/** The engine's fallback when the task has no retry policy (KikwiflowEngine.retryIncident@3b62f35). */
export const DEFAULT_RESTORED_RETRIES = 3;

/** What was read before the PUT: the failed task and how often it had run. */
export interface RetryBaseline {
  readonly taskId: string | null;
  readonly executionsBefore: number | null;
  readonly restoredRetries: number;
}

export type RetryObservation =
  | { readonly kind: "instance_gone" }
  | { readonly kind: "read"; readonly incident: Incident | null; readonly task: ExecutableTask | null };

export type RetryVerdict =
  | {
      readonly phase: "confirmed";
      /** `pending`: seen restored; `ran_again`: the engine already executed it again. */
      readonly how: "pending" | "ran_again";
      readonly incidentStatus: string;
      readonly taskStatus: string;
      readonly retries: number | null;
      readonly executions: number | null;
    }
  | { readonly phase: "moved_on"; readonly instanceFinished: boolean }
  | {
      readonly phase: "awaiting";
      readonly incidentStatus: string | null;
      readonly taskStatus: string | null;
      readonly retries: number | null;
    };

/** The retries the engine restores for this task. */
export function restoredRetriesOf(task: ExecutableTask | null | undefined): number {
  return task?.retryPolicy?.maxRetries ?? DEFAULT_RESTORED_RETRIES;
}

export function baselineOf(task: ExecutableTask | null | undefined): RetryBaseline {
  return {
    taskId: task?.id ?? null,
    executionsBefore: task?.executions ?? null,
    restoredRetries: restoredRetriesOf(task),
  };
}

export function judgeRetry(baseline: RetryBaseline, observation: RetryObservation): RetryVerdict {
  if (observation.kind === "instance_gone") return { phase: "moved_on", instanceFinished: true };
  const { incident, task } = observation;
  const awaiting: RetryVerdict = {
    phase: "awaiting",
    incidentStatus: incident?.status ?? null,
    taskStatus: task?.status ?? null,
    retries: task?.retries ?? null,
  };
  if (incident?.status !== "RESOLVED") return awaiting;
  // The instance is live but the task left it: the engine ran it and moved past it.
  if (task === null) return { phase: "moved_on", instanceFinished: false };
  const executions = task.executions ?? null;
  const before = baseline.executionsBefore;
  const confirmed = { phase: "confirmed", incidentStatus: incident.status, taskStatus: task.status } as const;
  if (before !== null && executions !== null && executions > before) {
    return { ...confirmed, how: "ran_again", retries: task.retries ?? null, executions };
  }
  if (task.status === "PENDING" && task.retries === baseline.restoredRetries) {
    return { ...confirmed, how: "pending", retries: task.retries, executions };
  }
  return awaiting;
}

/** What the console's retry route answers (app/api/kikwiflow/incidents/[id]/retry). */
export type RetryAnswer =
  | {
      result: "accepted";
      incidentId: string;
      instanceId: string | null;
      /** The retried incident's task (its `executionId`) and when that incident opened: what a later failure is told apart by. */
      taskId: string | null;
      incidentCreatedAt: string | null;
      /** `timed_out`: the bound ran out with the effect still unseen; `last` is what was read. */
      verdict: RetryVerdict | { phase: "timed_out"; last: RetryVerdict | null };
      elapsedMs: number;
    }
  | { result: "rejected"; incidentId: string; httpStatus: 409; message: string };
