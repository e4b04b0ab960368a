import * as z from "zod";
import { BUILD_ID_ACTIONS, BUILD_ID_MAX_LENGTH, TASK_QUEUE_MAX_LENGTH } from "./build-id-rules";

export { BUILD_ID_ACTIONS } from "./build-id-rules";
export type { BuildIdAction, BuildIdRolloutRequest } from "./build-id-rules";

/** A rollout change as the console's handler accepts it (build-id-rules.ts), checked before anything is sent. */
export const buildIdRolloutSchema = z
  .object({
    action: z.enum(BUILD_ID_ACTIONS),
    taskQueue: z.string().trim().min(1).max(TASK_QUEUE_MAX_LENGTH),
    buildId: z.string().trim().min(1).max(BUILD_ID_MAX_LENGTH).nullable(),
  })
  .strict();
