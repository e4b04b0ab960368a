/** Schedule vocabularies, zod-free so browser code may import them (schemas-schedules.ts decodes with them). */

/** durable-workflow/workflow src/V2/Models/WorkflowSchedule.php@8dc90d64 `OVERLAP_POLICIES`. */
export const OVERLAP_POLICIES = [
  "skip",
  "buffer_one",
  "buffer_all",
  "cancel_other",
  "terminate_other",
  "allow_all",
] as const;
export type OverlapPolicy = (typeof OVERLAP_POLICIES)[number];

/** src/V2/Enums/ScheduleStatus.php@8dc90d64 (`deleted` is never listed nor described). */
export const SCHEDULE_STATUSES = ["active", "paused", "deleted"] as const;

/** The schedule audit events (src/V2/Enums/HistoryEventType.php@8dc90d64, `Schedule*`). */
export const SCHEDULE_EVENT_TYPES = [
  "ScheduleCreated",
  "SchedulePaused",
  "ScheduleResumed",
  "ScheduleUpdated",
  "ScheduleTriggered",
  "ScheduleDeleted",
  "ScheduleTriggerSkipped",
] as const;
