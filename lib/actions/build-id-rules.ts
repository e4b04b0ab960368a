/**
 * Build-id rollout actions, zod-free so the browser may import them (decision 0056's rule for
 * `*-rules.ts`). The three the real server's task-queue routes take (TaskQueueController
 * `promoteBuildId` / `drainBuildId` / `resumeBuildId`); `build_id` is `present|nullable|string|max:255`,
 * null meaning the unversioned cohort.
 */
export const BUILD_ID_ACTIONS = ["promote", "drain", "resume"] as const;
export type BuildIdAction = (typeof BUILD_ID_ACTIONS)[number];

export const BUILD_ID_MAX_LENGTH = 255;
/** The real route's `{taskQueue}` segment is any non-empty string; the twin's registration caps it at 255. */
export const TASK_QUEUE_MAX_LENGTH = 255;

export interface BuildIdRolloutRequest {
  action: BuildIdAction;
  taskQueue: string;
  buildId: string | null;
}
