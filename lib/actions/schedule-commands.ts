import * as z from "zod";
import type { DwCommandClient, ScheduleCommandResult } from "@/lib/dw/commands";
import { OVERLAP_POLICIES } from "@/lib/dw/schedule-enums";

/**
 * The schedule actions as descriptors (decision 0019's server half): the schema the handler parses
 * the browser's request with, and the server call it becomes. Limits are the real controller's
 * (durable-workflow/server ScheduleController.php@11d35b7): a note of at most 1000 characters, an id
 * of at most 128, an overlap policy from WorkflowSchedule::OVERLAP_POLICIES, backfill's `end_time`
 * after its `start_time`. The console asks more than the server: a note to pause or resume, and the
 * schedule id typed again to delete.
 */

export const SCHEDULE_NOTE_MAX = 1000;
const scheduleId = z.string().min(1).max(128);
const note = z.string().trim().min(1, "A note is required.").max(SCHEDULE_NOTE_MAX);
const overlapPolicy = z.enum(OVERLAP_POLICIES);
const instant = z.iso.datetime({ offset: true });

export const scheduleActionRequestSchema = z.discriminatedUnion("action", [
  z.object({ action: z.literal("pause"), scheduleId, note }).strict(),
  z.object({ action: z.literal("resume"), scheduleId, note }).strict(),
  z.object({ action: z.literal("trigger"), scheduleId, overlapPolicy: overlapPolicy.optional() }).strict(),
  z
    .object({
      action: z.literal("backfill"),
      scheduleId,
      startTime: instant,
      endTime: instant,
      overlapPolicy: overlapPolicy.optional(),
    })
    .strict()
    .refine((request) => Date.parse(request.endTime) > Date.parse(request.startTime), {
      message: "The end must be after the start.",
      path: ["endTime"],
    }),
  z
    .object({ action: z.literal("delete"), scheduleId, confirmId: z.string() })
    .strict()
    .refine((request) => request.confirmId === request.scheduleId, {
      message: "Type the schedule id to delete it.",
      path: ["confirmId"],
    }),
]);
export type ScheduleActionRequest = z.infer<typeof scheduleActionRequestSchema>;
export type ScheduleActionName = ScheduleActionRequest["action"];

/** What the handler answers the browser: the server's outcome, reduced. */
export interface ScheduleActionAnswer {
  result: "accepted" | "rejected";
  httpStatus: number;
  action: ScheduleActionName;
  scheduleId: string;
  /** The server's `outcome` (paused, resumed, triggered, buffered, skipped, backfill_started, deleted…). */
  outcome: string | null;
  /** The server's `reason` (a trigger's skip reason, a refusal's code). */
  reason: string | null;
  message: string | null;
  /** A trigger's started run. */
  workflowId: string | null;
  runId: string | null;
  /** A backfill's fires and how many started. */
  firesAttempted: number | null;
  firesStarted: number | null;
}

export type ParsedScheduleRequest = { ok: true; request: ScheduleActionRequest } | { ok: false; message: string };

export function parseScheduleActionRequest(raw: unknown): ParsedScheduleRequest {
  const parsed = scheduleActionRequestSchema.safeParse(raw);
  if (parsed.success) return { ok: true, request: parsed.data };
  const issue = parsed.error.issues[0];
  return { ok: false, message: `${issue?.path.join(".") || "body"}: ${issue?.message ?? "invalid"}` };
}

function answerOf(action: ScheduleActionName, id: string, result: ScheduleCommandResult): ScheduleActionAnswer {
  if (result.kind === "rejected") {
    return {
      result: "rejected",
      httpStatus: result.httpStatus,
      action,
      scheduleId: id,
      outcome: null,
      reason: result.reason,
      message: result.message,
      workflowId: null,
      runId: null,
      firesAttempted: null,
      firesStarted: null,
    };
  }
  const body = result.body;
  return {
    result: "accepted",
    httpStatus: result.httpStatus,
    action,
    scheduleId: body.schedule_id,
    outcome: body.outcome,
    reason: body.reason ?? null,
    message: null,
    workflowId: body.workflow_id ?? null,
    runId: body.run_id ?? null,
    firesAttempted: body.fires_attempted ?? null,
    firesStarted: body.results ? body.results.filter((row) => row.outcome === "started").length : null,
  };
}

/** Sends the request's command; a refusal by the controller is an answer, an unreachable server throws. */
export async function sendScheduleCommand(
  client: DwCommandClient,
  request: ScheduleActionRequest,
): Promise<ScheduleActionAnswer> {
  const id = request.scheduleId;
  switch (request.action) {
    case "pause":
      return answerOf("pause", id, await client.pauseSchedule(id, request.note));
    case "resume":
      return answerOf("resume", id, await client.resumeSchedule(id, request.note));
    case "trigger":
      return answerOf("trigger", id, await client.triggerSchedule(id, request.overlapPolicy));
    case "backfill":
      return answerOf(
        "backfill",
        id,
        await client.backfillSchedule(id, {
          startTime: request.startTime,
          endTime: request.endTime,
          overlapPolicy: request.overlapPolicy,
        }),
      );
    case "delete":
      return answerOf("delete", id, await client.deleteSchedule(id));
  }
}
