/**
 * The console's own action API (`POST /api/actions/...`): what a screen sends and what the handler
 * answers, as plain types. The handler validates requests with zod
 * (`app/api/actions/_shared/schemas.ts`); the screens narrow answers with the small checks in
 * `send-action.ts`, so zod stays out of browser bundles (docs/decisions/0010).
 */

interface ActionTarget {
  workflowId: string;
  runId: string;
  /** Idempotency key: a retried click is the same command, never a second one. */
  requestId: string;
}

export type RunActionRequest =
  | (ActionTarget & { action: "repair" })
  | (ActionTarget & { action: "cancel"; reason: string })
  | (ActionTarget & { action: "terminate"; reason: string })
  | (ActionTarget & { action: "archive"; reason?: string })
  | (ActionTarget & { action: "signal"; signalName: string; input: unknown[] })
  | (ActionTarget & { action: "startAgain"; newWorkflowId: string });
export type RunActionName = RunActionRequest["action"];

/** The server's answer, reduced to what the screens show and confirm against. */
export interface ActionAnswer {
  result: "accepted" | "rejected";
  httpStatus: number;
  action: string;
  workflowId: string;
  /** The run the command resolved to (for start: the new run). */
  runId: string | null;
  commandId: string | null;
  outcome: string | null;
  rejectionReason: string | null;
  /** The server's message for a rejection, when it sent one. */
  message: string | null;
}

/** A refusal by the console (guard) or a failure reaching the server. */
export interface ActionError {
  reason: string;
  message: string;
  httpStatus?: number | null;
}

/** Read-only mode and the token's known role (`GET /api/actions/context`). */
export interface ActionContext {
  readOnly: boolean;
  role: "admin" | "operator" | "worker" | null;
}

/** A suggested id for "start again": the old id plus a short time-based suffix, within 128 chars. */
export function againWorkflowId(workflowId: string, now: number): string {
  const suffix = `-again-${now.toString(36)}`;
  const base = workflowId.replace(/[^a-zA-Z0-9._:-]/g, "-");
  return `${base.slice(0, 128 - suffix.length)}${suffix}`;
}

/** {@link againWorkflowId} for the moment the operator opens the dialog. */
export function suggestAgainWorkflowId(workflowId: string): string {
  return againWorkflowId(workflowId, Date.now());
}

/** Parses the signal input box: empty means no arguments, anything else must be a JSON array. */
export function parseSignalInput(
  text: string,
): { ok: true; value: unknown[] } | { ok: false; problem: "json" | "array" } {
  const trimmed = text.trim();
  if (trimmed === "") return { ok: true, value: [] };
  let parsed: unknown;
  try {
    parsed = JSON.parse(trimmed);
  } catch {
    return { ok: false, problem: "json" };
  }
  return Array.isArray(parsed) ? { ok: true, value: parsed } : { ok: false, problem: "array" };
}
