/**
 * Cancel instance, the Kikwiflow counterpart of Durable Workflow's Terminate. The engine's REST has no
 * cancel: its one way to stop an instance is `PUT /process-instances/{id}`, which removes the instance
 * and its tasks from the live store and keeps its incidents (ProcessInstanceOperationsRestApi.java,
 * InMemoryKikwiEngineRepository.deleteProcessInstanceById@3b62f35). So the 204 is not the proof: the
 * console calls it done once a read of the instance is the engine's 404. Pure and browser-safe.
 */

/** A reason is required, as for Terminate; the engine takes none, so the console logs it. */
export const CANCEL_REASON_MAX = 500;

export type CancelReasonProblem = "required" | "too_long";

export function cancelReasonProblem(reason: string | null | undefined): CancelReasonProblem | null {
  const trimmed = (reason ?? "").trim();
  if (trimmed === "") return "required";
  return trimmed.length > CANCEL_REASON_MAX ? "too_long" : null;
}

/** What a re-read of the instance found: gone (404), or still there with its status. */
export type CancelObservation = { readonly kind: "gone" } | { readonly kind: "present"; readonly status: string };

export type CancelVerdict =
  | { readonly phase: "confirmed" }
  | { readonly phase: "awaiting"; readonly status: string }
  | { readonly phase: "timed_out"; readonly status: string | null };

export function judgeCancel(observation: CancelObservation): CancelVerdict {
  return observation.kind === "gone" ? { phase: "confirmed" } : { phase: "awaiting", status: observation.status };
}

/** Only a running instance can be stopped; a finished one is already gone from the live store. */
export function cancellable(status: string | null | undefined): boolean {
  return status === "ACTIVE";
}

/** What the console's cancel route answers (app/api/kikwiflow/instances/[id]/cancel). */
export type CancelAnswer =
  | { result: "accepted"; instanceId: string; verdict: CancelVerdict; elapsedMs: number }
  | { result: "rejected"; instanceId: string; httpStatus: 409; status: string; message: string };
