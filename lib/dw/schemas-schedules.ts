import * as z from "zod";
import { OVERLAP_POLICIES, SCHEDULE_EVENT_TYPES, SCHEDULE_STATUSES } from "./schedule-enums";
import { anyMap, nullableString, openEnum, optionalBool, optionalInt, optionalString, timestamp } from "./schema-kit";

/**
 * Schedules (`/api/schedules…`). Shapes follow the real server's ScheduleController
 * (durable-workflow/server app/Http/Controllers/Api/ScheduleController.php@11d35b7 and the later
 * version in the code index with list filters and paging, read_file id 61270531581) over the engine's
 * WorkflowSchedule::toListItem / toDetail and ScheduleManager (durable-workflow/workflow
 * src/V2/Models/WorkflowSchedule.php@8dc90d64, src/V2/Support/ScheduleManager.php@8dc90d64), and the
 * CLI's schedule*.schema.json (durable-workflow/cli schemas/output@830d26e). Open objects: every field
 * the console does not read may come and go.
 */

export { OVERLAP_POLICIES, SCHEDULE_EVENT_TYPES, SCHEDULE_STATUSES } from "./schedule-enums";
export type { OverlapPolicy } from "./schedule-enums";

const intervalSchema = z.looseObject({ every: z.string(), offset: optionalString });

/** `spec`: `{cron_expressions?, intervals?, timezone?}` as stored (ScheduleManager::createFromSpec). */
export const scheduleSpecSchema = z.looseObject({
  cron_expressions: z.array(z.string()).nullish(),
  intervals: z.array(intervalSchema).nullish(),
  timezone: optionalString,
});
export type ScheduleSpec = z.infer<typeof scheduleSpecSchema>;

/** `action`: what a fire starts (normalizeActionTimeouts renames the legacy timeout fields). */
export const scheduleActionSchema = z.looseObject({
  workflow_type: optionalString,
  task_queue: optionalString,
  input: z.unknown().optional(),
  execution_timeout_seconds: optionalInt,
  run_timeout_seconds: optionalInt,
});
export type ScheduleActionSpec = z.infer<typeof scheduleActionSchema>;

const instant = timestamp.nullish();

/**
 * `index`'s item: toListItem + fires_count (+ jitter/max_runs/remaining_actions when set). The later
 * server adds namespace, spec, action, next_fire_at, last_fired_at, search_attributes and the times.
 */
export const scheduleListItemSchema = z.looseObject({
  schedule_id: z.string(),
  workflow_type: nullableString.optional(),
  status: openEnum(SCHEDULE_STATUSES).nullish(),
  paused: optionalBool,
  next_fire: instant,
  last_fire: instant,
  overlap_policy: openEnum(OVERLAP_POLICIES).nullish(),
  note: optionalString,
  fires_count: optionalInt,
  jitter_seconds: optionalInt,
  max_runs: optionalInt,
  remaining_actions: optionalInt,
  spec: scheduleSpecSchema.nullish(),
  action: scheduleActionSchema.nullish(),
  created_at: instant,
});
export type ScheduleListItem = z.infer<typeof scheduleListItemSchema>;

export const scheduleListSchema = z.looseObject({
  schedules: z.array(scheduleListItemSchema),
  schedule_count: optionalInt,
  next_page_token: nullableString.optional(),
});
export type ScheduleList = z.infer<typeof scheduleListSchema>;

/** One entry of `info.recent_actions` (WorkflowSchedule::recordFire / recordFailure, the last ten). */
export const recentActionSchema = z.looseObject({
  workflow_id: optionalString,
  run_id: optionalString,
  outcome: optionalString,
  reason: optionalString,
  fired_at: instant,
  occurrence_time: optionalString,
  fire_lag_ms: optionalInt,
});
export type RecentAction = z.infer<typeof recentActionSchema>;

/** `show`: toDetail + jitter, max_runs, remaining_actions, latest instance and the skip counters. */
export const scheduleDescriptionSchema = z.looseObject({
  schedule_id: z.string(),
  spec: scheduleSpecSchema.nullish(),
  action: scheduleActionSchema.nullish(),
  overlap_policy: openEnum(OVERLAP_POLICIES).nullish(),
  state: z
    .looseObject({ status: openEnum(SCHEDULE_STATUSES).nullish(), paused: optionalBool, note: optionalString })
    .nullish(),
  info: z
    .looseObject({
      next_fire: instant,
      last_fire: instant,
      fires_count: optionalInt,
      failures_count: optionalInt,
      recent_actions: z.array(recentActionSchema).nullish(),
      buffered_actions: z.array(z.unknown()).nullish(),
      skipped_trigger_count: optionalInt,
      last_skip_reason: optionalString,
      last_skipped_at: instant,
    })
    .nullish(),
  memo: anyMap.nullish(),
  search_attributes: anyMap.nullish(),
  jitter_seconds: optionalInt,
  max_runs: optionalInt,
  remaining_actions: optionalInt,
  latest_workflow_instance_id: optionalString,
  created_at: instant,
  updated_at: instant,
});
export type ScheduleDescription = z.infer<typeof scheduleDescriptionSchema>;

/** `history`: the audit stream in sequence order, paged by `after_sequence`. */
export const scheduleHistoryEventSchema = z.looseObject({
  id: z.union([z.string(), z.number()]).nullish(),
  sequence: z.number().int(),
  event_type: openEnum(SCHEDULE_EVENT_TYPES).nullable(),
  payload: anyMap,
  workflow_instance_id: optionalString,
  workflow_run_id: optionalString,
  recorded_at: instant,
});
export type ScheduleHistoryEvent = z.infer<typeof scheduleHistoryEventSchema>;

export const scheduleHistorySchema = z.looseObject({
  schedule_id: z.string(),
  namespace: optionalString,
  events: z.array(scheduleHistoryEventSchema),
  next_cursor: z.number().int().nullish(),
  has_more: optionalBool,
});
export type ScheduleHistory = z.infer<typeof scheduleHistorySchema>;

/**
 * Every command's answer: `{schedule_id, outcome}` (pause, resume, delete, update), trigger's
 * `workflow_id`/`run_id` or `buffer_depth` or `reason`, backfill's `fires_attempted` and `results`.
 */
export const scheduleCommandAnswerSchema = z.looseObject({
  schedule_id: z.string(),
  outcome: z.string(),
  workflow_id: optionalString,
  run_id: optionalString,
  buffer_depth: optionalInt,
  reason: optionalString,
  fires_attempted: optionalInt,
  results: z
    .array(
      z.looseObject({
        fire_time: z.string(),
        workflow_id: optionalString,
        outcome: z.string(),
        reason: optionalString,
      }),
    )
    .optional(),
});
export type ScheduleCommandAnswer = z.infer<typeof scheduleCommandAnswerSchema>;
