import type { ScheduleActionAnswer } from "@/lib/actions/schedule-commands";
import type { ScheduleDescription, ScheduleHistoryEvent } from "@/lib/dw/schemas-schedules";

/**
 * Confirming a schedule action from durable state, not from the command's answer: the schedule read
 * back (describe; a 404 once deleted) and its audit history after the sequence read before sending
 * (ScheduleManager records one event per transition: durable-workflow/workflow
 * src/V2/Support/ScheduleManager.php@8dc90d64). Pure: the caller feeds what it read.
 */

export interface ScheduleObservation {
  /** Describe's answer; null when the server answered 404 (deleted or never there). */
  detail: ScheduleDescription | null;
  /** History events with a sequence above the baseline, in any order. */
  events: readonly ScheduleHistoryEvent[];
}

export type ScheduleConfirmation =
  { phase: "confirmed"; detail: string | null } | { phase: "awaiting"; waitingFor: string } | { phase: "unchanged" };

const has = (events: readonly ScheduleHistoryEvent[], type: string) => events.some((e) => e.event_type === type);

function triggered(events: readonly ScheduleHistoryEvent[], workflowId: string | null): boolean {
  return events.some(
    (e) =>
      e.event_type === "ScheduleTriggered" &&
      (workflowId === null ||
        e.workflow_instance_id === workflowId ||
        (e.payload as Record<string, unknown>).workflow_instance_id === workflowId),
  );
}

/** Whether what the accepted answer claims is in the schedule's durable state yet. */
export function confirmScheduleAction(answer: ScheduleActionAnswer, seen: ScheduleObservation): ScheduleConfirmation {
  const { detail, events } = seen;
  const status = detail?.state?.status ?? null;
  switch (answer.action) {
    case "pause":
      return status === "paused" && has(events, "SchedulePaused")
        ? { phase: "confirmed", detail: detail?.state?.note ?? null }
        : { phase: "awaiting", waitingFor: "SchedulePaused" };
    case "resume":
      return status === "active" && has(events, "ScheduleResumed")
        ? { phase: "confirmed", detail: detail?.info?.next_fire ?? null }
        : { phase: "awaiting", waitingFor: "ScheduleResumed" };
    case "trigger":
      if (answer.outcome === "triggered")
        return triggered(events, answer.workflowId)
          ? { phase: "confirmed", detail: answer.workflowId }
          : { phase: "awaiting", waitingFor: "ScheduleTriggered" };
      if (answer.outcome === "buffered")
        return (detail?.info?.buffered_actions?.length ?? 0) > 0
          ? { phase: "confirmed", detail: String(detail?.info?.buffered_actions?.length ?? 0) }
          : { phase: "awaiting", waitingFor: "buffered_actions" };
      if (answer.outcome === "skipped")
        return has(events, "ScheduleTriggerSkipped")
          ? { phase: "confirmed", detail: answer.reason }
          : { phase: "awaiting", waitingFor: "ScheduleTriggerSkipped" };
      // buffer_full: the server changed nothing, so there is nothing to find.
      return { phase: "unchanged" };
    case "backfill": {
      const started = answer.firesStarted ?? 0;
      const found = events.filter((e) => e.event_type === "ScheduleTriggered").length;
      if (started === 0) return { phase: "unchanged" };
      return found >= started
        ? { phase: "confirmed", detail: String(found) }
        : { phase: "awaiting", waitingFor: "ScheduleTriggered" };
    }
    case "delete":
      return detail === null && has(events, "ScheduleDeleted")
        ? { phase: "confirmed", detail: null }
        : { phase: "awaiting", waitingFor: "ScheduleDeleted" };
  }
}
