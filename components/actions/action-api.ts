import * as z from "zod";

/**
 * The console's own action API (`POST /api/actions/...`): what a screen sends and what the handler
 * answers. Both sides parse with these schemas; the handler never trusts the browser's shape, and
 * the screen never trusts a body it did not validate.
 */

/** Workflow ids as the server accepts them (server-api §2.8). */
const WORKFLOW_ID = /^[a-zA-Z0-9._:-]+$/;

const target = {
  workflowId: z.string().min(1).max(255),
  runId: z.string().min(1).max(255),
  /** Idempotency key: a retried click is the same command, never a second one. */
  requestId: z.string().min(8).max(255),
};

const reasonRequired = z.string().trim().min(1, "A reason is required.").max(1000);

export const runActionRequestSchema = z.discriminatedUnion("action", [
  z.object({ action: z.literal("repair"), ...target }),
  z.object({ action: z.literal("cancel"), ...target, reason: reasonRequired }),
  z.object({ action: z.literal("terminate"), ...target, reason: reasonRequired }),
  z.object({ action: z.literal("archive"), ...target, reason: z.string().trim().max(1000).optional() }),
  z.object({ action: z.literal("signal"), ...target, signalName: z.string().trim().min(1).max(256), input: z.array(z.unknown()) }),
  z.object({
    action: z.literal("startAgain"),
    ...target,
    newWorkflowId: z.string().trim().min(1).max(128).regex(WORKFLOW_ID, "Use letters, digits, '.', '_', ':' or '-'."),
  }),
]);
export type RunActionRequest = z.infer<typeof runActionRequestSchema>;
export type RunActionName = RunActionRequest["action"];

/** The server's answer, reduced to what the screens show and confirm against. */
export const actionAnswerSchema = z.object({
  result: z.enum(["accepted", "rejected"]),
  httpStatus: z.number().int(),
  action: z.string(),
  workflowId: z.string(),
  /** The run the command resolved to (for start: the new run). */
  runId: z.string().nullable(),
  commandId: z.string().nullable(),
  outcome: z.string().nullable(),
  rejectionReason: z.string().nullable(),
  /** The server's message for a rejection, when it sent one. */
  message: z.string().nullable(),
});
export type ActionAnswer = z.infer<typeof actionAnswerSchema>;

/** A refusal by the console (guard) or a failure reaching the server. */
export const actionErrorSchema = z.object({
  reason: z.string(),
  message: z.string(),
  httpStatus: z.number().int().nullable().optional(),
});
export type ActionError = z.infer<typeof actionErrorSchema>;

/** The answer of `POST /api/actions/system/{pass}`: the server's status and its report, unparsed. */
export const passAnswerSchema = z.object({
  httpStatus: z.number().int(),
  partial: z.boolean(),
  report: z.unknown(),
});

export const actionContextSchema = z.object({
  readOnly: z.boolean(),
  role: z.enum(["admin", "operator", "worker"]).nullable(),
});

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
export function parseSignalInput(text: string): { ok: true; value: unknown[] } | { ok: false; problem: "json" | "array" } {
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
