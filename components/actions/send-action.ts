import type { RetentionPassReport } from "@/lib/dw/schemas-namespaces";
import type { ActivityTimeoutPassReport, RepairPassReport } from "@/lib/dw/schemas-system";
import type { ActionAnswer, ActionContext, ActionError, RunActionRequest } from "@/lib/actions/contract";
import { withBasePath } from "@/lib/http/base-path";

export type SendOutcome = { ok: true; answer: ActionAnswer } | { ok: false; error: ActionError };

/*
 * The answers come from the console's own handlers, which build them from bodies their server-side
 * client already parsed with zod; these checks only tell the answer shapes apart (and reject a body
 * from anything else, e.g. a proxy's error page) without shipping zod to the browser.
 */

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isInt(value: unknown): value is number {
  return Number.isSafeInteger(value);
}

function isStringOrNull(value: unknown): value is string | null {
  return value === null || typeof value === "string";
}

/** Only the known fields are kept, so the screens see exactly the {@link ActionAnswer} shape. */
export function toActionAnswer(json: unknown): ActionAnswer | null {
  if (!isRecord(json)) return null;
  const { result, httpStatus, action, workflowId, runId, commandId, outcome, rejectionReason, message } = json;
  if (result !== "accepted" && result !== "rejected") return null;
  if (!isInt(httpStatus) || typeof action !== "string" || typeof workflowId !== "string") return null;
  if (
    !isStringOrNull(runId) ||
    !isStringOrNull(commandId) ||
    !isStringOrNull(outcome) ||
    !isStringOrNull(rejectionReason) ||
    !isStringOrNull(message)
  )
    return null;
  return { result, httpStatus, action, workflowId, runId, commandId, outcome, rejectionReason, message };
}

export function toActionError(json: unknown): ActionError | null {
  if (!isRecord(json)) return null;
  const { reason, message, httpStatus } = json;
  if (typeof reason !== "string" || typeof message !== "string") return null;
  if (httpStatus === undefined) return { reason, message };
  return httpStatus === null || isInt(httpStatus) ? { reason, message, httpStatus } : null;
}

function isTokenRole(value: unknown): value is ActionContext["role"] {
  return value === null || value === "admin" || value === "operator" || value === "worker";
}

function isPersonRole(value: unknown): value is ActionContext["personRole"] {
  return value === null || value === "viewer" || value === "operator" || value === "admin";
}

export function toActionContext(json: unknown): ActionContext {
  if (isRecord(json) && typeof json.readOnly === "boolean") {
    // An answer without `personRole` means no console auth: no person to check.
    const { readOnly, role, personRole = null } = json;
    if (isTokenRole(role) && isPersonRole(personRole)) return { readOnly, role, personRole };
  }
  throw new Error("Unexpected answer from /api/actions/context.");
}

/** `namespace` is the sending page's (its URL's): the handler acts there and nowhere else. */
async function post(
  url: string,
  namespace: string,
  body: unknown,
  signal?: AbortSignal,
): Promise<{ status: number; json: unknown } | ActionError> {
  try {
    const response = await fetch(withBasePath(url), {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json", "x-namespace": namespace },
      body: JSON.stringify(body),
      signal,
    });
    const text = await response.text();
    try {
      return { status: response.status, json: JSON.parse(text) as unknown };
    } catch {
      return {
        reason: "malformed_response",
        message: `HTTP ${response.status}: ${text.slice(0, 200)}`,
        httpStatus: response.status,
      };
    }
  } catch (error) {
    return {
      reason: "console_unreachable",
      message: error instanceof Error ? error.message : String(error),
      httpStatus: null,
    };
  }
}

function isError(value: { status: number; json: unknown } | ActionError): value is ActionError {
  return "reason" in value;
}

/** Sends one run action through the console's guarded handler. Never throws. */
export async function sendRunAction(
  namespace: string,
  request: RunActionRequest,
  signal?: AbortSignal,
): Promise<SendOutcome> {
  const raw = await post("/api/actions/runs", namespace, request, signal);
  if (isError(raw)) return { ok: false, error: raw };
  const answer = toActionAnswer(raw.json);
  if (answer) return { ok: true, answer };
  const error = toActionError(raw.json);
  if (error) return { ok: false, error: { ...error, httpStatus: error.httpStatus ?? raw.status } };
  return {
    ok: false,
    error: { reason: "malformed_response", message: `HTTP ${raw.status}: unexpected answer`, httpStatus: raw.status },
  };
}

interface PassReports {
  "repair-pass": RepairPassReport;
  "activity-timeout-pass": ActivityTimeoutPassReport;
  "retention-pass": RetentionPassReport;
}

/**
 * Sends a maintenance pass. The handler's server-side client parsed the report with the pass's zod
 * schema (a report that breaks the contract is answered as a `malformed_response` error instead).
 */
export async function sendSystemPass<P extends keyof PassReports>(
  namespace: string,
  pass: P,
  body: unknown = {},
): Promise<{ ok: true; status: number; report: PassReports[P] } | { ok: false; error: ActionError }> {
  const raw = await post(`/api/actions/system/${pass}`, namespace, body);
  if (isError(raw)) return { ok: false, error: raw };
  const json = raw.json;
  if (
    (raw.status === 200 || raw.status === 207) &&
    isRecord(json) &&
    isInt(json.httpStatus) &&
    typeof json.partial === "boolean"
  ) {
    return { ok: true, status: json.httpStatus, report: json.report as PassReports[P] };
  }
  const error = toActionError(raw.json);
  return {
    ok: false,
    error: error
      ? { ...error, httpStatus: raw.status }
      : { reason: "malformed_response", message: `HTTP ${raw.status}`, httpStatus: raw.status },
  };
}

/** A fresh idempotency key per intended command. */
export function newRequestId(): string {
  return `bw-${crypto.randomUUID()}`;
}
