import type { ActionAnswer, ActionError, RunActionRequest } from "./action-api";
import { actionAnswerSchema, actionErrorSchema, passAnswerSchema } from "./action-api";

export type SendOutcome = { ok: true; answer: ActionAnswer } | { ok: false; error: ActionError };

async function post(url: string, body: unknown, signal?: AbortSignal): Promise<{ status: number; json: unknown } | ActionError> {
  try {
    const response = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json" },
      body: JSON.stringify(body),
      signal,
    });
    const text = await response.text();
    try {
      return { status: response.status, json: JSON.parse(text) as unknown };
    } catch {
      return { reason: "malformed_response", message: `HTTP ${response.status}: ${text.slice(0, 200)}`, httpStatus: response.status };
    }
  } catch (error) {
    return { reason: "console_unreachable", message: error instanceof Error ? error.message : String(error), httpStatus: null };
  }
}

function isError(value: { status: number; json: unknown } | ActionError): value is ActionError {
  return "reason" in value;
}

/** Sends one run action through the console's guarded handler. Never throws. */
export async function sendRunAction(request: RunActionRequest, signal?: AbortSignal): Promise<SendOutcome> {
  const raw = await post("/api/actions/runs", request, signal);
  if (isError(raw)) return { ok: false, error: raw };
  const answer = actionAnswerSchema.safeParse(raw.json);
  if (answer.success) return { ok: true, answer: answer.data };
  const error = actionErrorSchema.safeParse(raw.json);
  if (error.success) return { ok: false, error: { ...error.data, httpStatus: error.data.httpStatus ?? raw.status } };
  return { ok: false, error: { reason: "malformed_response", message: `HTTP ${raw.status}: unexpected answer`, httpStatus: raw.status } };
}

/** Sends a maintenance pass; the server's report is returned unparsed for the caller's schema. */
export async function sendSystemPass(pass: "repair-pass" | "activity-timeout-pass", body: unknown = {}): Promise<{ ok: true; status: number; json: unknown } | { ok: false; error: ActionError }> {
  const raw = await post(`/api/actions/system/${pass}`, body);
  if (isError(raw)) return { ok: false, error: raw };
  const answer = passAnswerSchema.safeParse(raw.json);
  if ((raw.status === 200 || raw.status === 207) && answer.success) return { ok: true, status: answer.data.httpStatus, json: answer.data.report };
  const error = actionErrorSchema.safeParse(raw.json);
  return { ok: false, error: error.success ? { ...error.data, httpStatus: raw.status } : { reason: "malformed_response", message: `HTTP ${raw.status}`, httpStatus: raw.status } };
}

/** A fresh idempotency key per intended command. */
export function newRequestId(): string {
  return `bw-${crypto.randomUUID()}`;
}
