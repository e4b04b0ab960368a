import * as z from "zod";
import {
  CLEANUP_TIMEOUT_MAX,
  CLEANUP_TIMEOUT_MIN,
  NEW_WORKFLOW_ID_MAX,
  REASON_MAX,
  SIGNAL_NAME_MAX,
  WORKFLOW_ID,
} from "./limits";

/**
 * The zod pieces the command descriptors (commands.ts) build their request schemas from. Server
 * side only: the browser validates with the form descriptors (forms.ts), the handler re-validates
 * with these, because it never trusts the browser's shape.
 */

/** The fields every run action carries. */
export const target = {
  workflowId: z.string().min(1).max(255),
  runId: z.string().min(1).max(255),
  requestId: z.string().min(8).max(255),
};

/** Deeper than any real signal argument; thousands of levels overflow the stack further in (a 500). */
export const MAX_INPUT_DEPTH = 64;

/** Nesting depth of a parsed JSON value, without recursion (the value may be hostile). */
export function jsonDepth(value: unknown, limit = MAX_INPUT_DEPTH): number {
  let deepest = 0;
  const pending: [unknown, number][] = [[value, 1]];
  while (pending.length > 0) {
    const [node, depth] = pending.pop() as [unknown, number];
    if (node === null || typeof node !== "object") continue;
    deepest = Math.max(deepest, depth);
    if (deepest > limit) return deepest;
    for (const child of Object.values(node)) pending.push([child, depth + 1]);
  }
  return deepest;
}

export const signalInput = z
  .array(z.unknown())
  .refine((input) => jsonDepth(input) <= MAX_INPUT_DEPTH, `The input nests deeper than ${MAX_INPUT_DEPTH} levels.`);

export const reasonRequired = z.string().trim().min(1, "A reason is required.").max(REASON_MAX);
export const reasonOptional = z.string().trim().max(REASON_MAX).optional();
export const cleanupTimeoutSeconds = z.number().int().min(CLEANUP_TIMEOUT_MIN).max(CLEANUP_TIMEOUT_MAX);
export const signalName = z.string().trim().min(1).max(SIGNAL_NAME_MAX);
export const newWorkflowId = z
  .string()
  .trim()
  .min(1)
  .max(NEW_WORKFLOW_ID_MAX)
  .regex(WORKFLOW_ID, "Use letters, digits, '.', '_', ':' or '-'.");
