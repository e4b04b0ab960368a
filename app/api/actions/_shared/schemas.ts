import * as z from "zod";
import type { RunActionRequest } from "@/components/actions/action-api";

/** Workflow ids as the server accepts them (server-api §2.8). */
const WORKFLOW_ID = /^[a-zA-Z0-9._:-]+$/;

const target = {
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

const signalInput = z
  .array(z.unknown())
  .refine((input) => jsonDepth(input) <= MAX_INPUT_DEPTH, `The input nests deeper than ${MAX_INPUT_DEPTH} levels.`);

const reasonRequired = z.string().trim().min(1, "A reason is required.").max(1000);

/** The handler's parse of `POST /api/actions/runs`: it never trusts the browser's shape. */
export const runActionRequestSchema = z.discriminatedUnion("action", [
  z.object({ action: z.literal("repair"), ...target }),
  z.object({ action: z.literal("cancel"), ...target, reason: reasonRequired }),
  z.object({ action: z.literal("terminate"), ...target, reason: reasonRequired }),
  z.object({ action: z.literal("archive"), ...target, reason: z.string().trim().max(1000).optional() }),
  z.object({
    action: z.literal("signal"),
    ...target,
    signalName: z.string().trim().min(1).max(256),
    input: signalInput,
  }),
  z.object({
    action: z.literal("startAgain"),
    ...target,
    newWorkflowId: z.string().trim().min(1).max(128).regex(WORKFLOW_ID, "Use letters, digits, '.', '_', ':' or '-'."),
  }),
]) satisfies z.ZodType<RunActionRequest>;
