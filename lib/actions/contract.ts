import type { PersonRole } from "@/lib/server/auth/roles";
import type { Role } from "@/lib/views/capabilities";

/**
 * The console's own action API (`POST /api/actions/...`): what a screen sends and what the handler
 * answers, as plain types. The handler validates requests with the zod schemas of the command
 * descriptors (`lib/actions/commands.ts`); the screens build requests with the zod-free form
 * descriptors (`lib/actions/forms.ts`) and narrow answers with the small checks in
 * `components/actions/send-action.ts`, so zod stays out of browser bundles (docs/decisions/0010, 0019).
 */

/** Where a command goes and its idempotency key: the part of a request the form does not fill. */
export interface ActionTarget {
  workflowId: string;
  runId: string;
  /** Idempotency key: a retried click is the same command, never a second one. */
  requestId: string;
}

export type RunActionRequest =
  | (ActionTarget & { action: "repair" })
  | (ActionTarget & { action: "requestCancellation"; cleanupTimeoutSeconds: number; reason?: string })
  | (ActionTarget & { action: "cancel"; reason: string })
  | (ActionTarget & { action: "terminate"; reason: string })
  | (ActionTarget & { action: "archive"; reason?: string })
  | (ActionTarget & { action: "signal"; signalName: string; input: unknown[] })
  | (ActionTarget & { action: "startAgain"; newWorkflowId: string });
export type RunActionName = RunActionRequest["action"];
/** The request of one action. */
export type RequestOf<A extends RunActionName> = Extract<RunActionRequest, { action: A }>;

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

/**
 * What decides the buttons for the person asking (`GET /api/actions/context`): read-only mode, the
 * role of the token the console sends for them, and, under console auth, their own role (null when
 * console auth is off, so no person is checked).
 */
export interface ActionContext {
  readOnly: boolean;
  role: Role | null;
  personRole: PersonRole | null;
}

/**
 * A suggested id for "start again": the old id plus a short time-based suffix, within 128 chars.
 * Starting again a run that was itself started again replaces its suffix instead of adding one
 * (issue 15: ids chained `…-again-…-again-…`).
 */
export function againWorkflowId(workflowId: string, now: number): string {
  const suffix = `-again-${now.toString(36)}`;
  const base = workflowId.replace(/[^a-zA-Z0-9._:-]/g, "-").replace(/(-again-[a-z0-9]+)+$/, "");
  return `${base.slice(0, 128 - suffix.length)}${suffix}`;
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
