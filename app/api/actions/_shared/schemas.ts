import * as z from "zod";
import type { RunActionRequest } from "@/components/actions/action-api";

/** Workflow ids as the server accepts them (server-api §2.8). */
const WORKFLOW_ID = /^[a-zA-Z0-9._:-]+$/;

const target = {
  workflowId: z.string().min(1).max(255),
  runId: z.string().min(1).max(255),
  requestId: z.string().min(8).max(255),
};

const reasonRequired = z.string().trim().min(1, "A reason is required.").max(1000);

/** The handler's parse of `POST /api/actions/runs`: it never trusts the browser's shape. */
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
]) satisfies z.ZodType<RunActionRequest>;
