import { SIGNAL_NAME_MAX } from "./limits";

/**
 * Sending an update from the run page's Updates tab (issue 41): the request the tab posts to
 * `POST /api/actions/updates` and the answer it gets, as plain types (zod-free: the browser builds
 * and reads them; the handler re-validates with update-command.ts). Its own route and answer, not a
 * run action: an update answers with an update id and state the confirmation follows.
 */

export type UpdateWaitFor = "accepted" | "completed";

export interface UpdateActionRequest {
  workflowId: string;
  runId: string;
  /** Idempotency key: a retried click returns the first update's receipt (the server's request_id rule). */
  requestId: string;
  updateName: string;
  /** One element per handler argument. */
  input: unknown[];
  waitFor: UpdateWaitFor;
}

/** The server's answer reduced to what the tab shows and confirms (docs/contract.md "Updates"). */
export interface UpdateActionAnswer {
  /** `accepted`: 2xx; `rejected`: the server's 404/409/422 command answer (a failed handler is a 422). */
  result: "accepted" | "rejected";
  httpStatus: number;
  workflowId: string;
  runId: string | null;
  commandId: string | null;
  /** The id the confirmation reads history by; null when the server recorded no update. */
  updateId: string | null;
  updateName: string;
  outcome: string | null;
  /** `UpdateStatus` as answered: accepted | completed | failed | rejected. */
  updateStatus: string | null;
  waitFor: string | null;
  /** The server stopped waiting for the handler; the update is still accepted and may yet close. */
  waitTimedOut: boolean;
  rejectionReason: string | null;
  failureMessage: string | null;
}

/** The longest update name the console sends (the signal limit: both are handler names). */
export const UPDATE_NAME_MAX = SIGNAL_NAME_MAX;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

const stringOrNull = (value: unknown): value is string | null => value === null || typeof value === "string";

/** Tells the handler's answer apart from its error envelope without zod; only the known fields are kept. */
export function toUpdateActionAnswer(json: unknown): UpdateActionAnswer | null {
  if (!isRecord(json)) return null;
  const { result, httpStatus, workflowId, updateName, waitTimedOut } = json;
  if (result !== "accepted" && result !== "rejected") return null;
  if (!Number.isSafeInteger(httpStatus) || typeof workflowId !== "string" || typeof updateName !== "string")
    return null;
  if (typeof waitTimedOut !== "boolean") return null;
  const nullable = [
    "runId",
    "commandId",
    "updateId",
    "outcome",
    "updateStatus",
    "waitFor",
    "rejectionReason",
    "failureMessage",
  ] as const;
  if (!nullable.every((key) => stringOrNull(json[key]))) return null;
  const pick = (key: (typeof nullable)[number]) => json[key] as string | null;
  return {
    result,
    httpStatus: httpStatus as number,
    workflowId,
    runId: pick("runId"),
    commandId: pick("commandId"),
    updateId: pick("updateId"),
    updateName,
    outcome: pick("outcome"),
    updateStatus: pick("updateStatus"),
    waitFor: pick("waitFor"),
    waitTimedOut,
    rejectionReason: pick("rejectionReason"),
    failureMessage: pick("failureMessage"),
  };
}
