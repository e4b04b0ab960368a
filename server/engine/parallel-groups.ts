import { z } from "zod";
import type { ActivityRow } from "./rows";
import type { JsonObject, Tx } from "./tx";
import { parseJson } from "./tx";

/**
 * Parallel groups: an SDK yields several commands at once (sdk-python: `yield [ctx.schedule_activity(...), ...]`)
 * and tags each with its group — id, kind, base sequence, size, index, and the path of enclosing
 * groups. The engine records those keys on the member's history events
 * (HistoryEventPayloadContract.php@8dc90d64: ActivityScheduled/Started/Completed/Failed/TimedOut/
 * RetryScheduled) and wakes the workflow on a member's success only once every group on its path
 * has completed successfully; a failure wakes it at once (ParallelChildGroup.php@8dc90d64
 * `shouldWakeParentOnClosure`). Without the keys the SDK cannot match its group to history and
 * re-schedules it on every wake-up.
 *
 * This server takes groups of activities (the kind sdk-python calls `activity`), the only kind it
 * records metadata for; a group's members must carry the sequences the server gives them.
 */
const entrySchema = z.object({
  parallel_group_id: z.string().min(1).max(255),
  parallel_group_kind: z.string().min(1).max(64),
  parallel_group_base_sequence: z.number().int().min(1),
  parallel_group_size: z.number().int().min(1).max(10_000),
  parallel_group_index: z.number().int().min(0),
});
export type ParallelEntry = z.infer<typeof entrySchema>;

/** The optional members of a command that carry its parallel group. */
export const parallelFields = {
  parallel_group_id: z.string().min(1).max(255).nullish(),
  parallel_group_kind: z.string().min(1).max(64).nullish(),
  parallel_group_base_sequence: z.number().int().min(1).nullish(),
  parallel_group_size: z.number().int().min(1).max(10_000).nullish(),
  parallel_group_index: z.number().int().min(0).nullish(),
  parallel_group_path: z.array(entrySchema).max(32).nullish(),
};

type WithParallel = { [K in keyof typeof parallelFields]?: z.infer<(typeof parallelFields)[K]> };

/** The command's group path (innermost last), or [] when it is not in a group. */
export function parallelPath(c: WithParallel): ParallelEntry[] {
  if (c.parallel_group_path && c.parallel_group_path.length > 0) return c.parallel_group_path;
  const single = entrySchema.safeParse(c);
  return single.success ? [single.data] : [];
}

/** Checks the path against the sequence the server gave the member; returns the error text or null. */
export function pathMismatch(path: ParallelEntry[], sequence: number): string | null {
  const inner = path.at(-1);
  if (!inner) return null;
  if (inner.parallel_group_index >= inner.parallel_group_size)
    return "parallel_group_index must be below parallel_group_size.";
  if (inner.parallel_group_base_sequence + inner.parallel_group_index !== sequence) {
    return `parallel group member declares sequence ${inner.parallel_group_base_sequence + inner.parallel_group_index}, but the server's next workflow sequence is ${sequence}.`;
  }
  return null;
}

/** The event keys of a member: the innermost entry plus the path, as ParallelChildGroup::payloadForPath. */
export function parallelKeys(path: ParallelEntry[]): JsonObject {
  const inner = path.at(-1);
  if (!inner) return {};
  return { ...inner, parallel_group_path: path.map((e) => ({ ...e })) };
}

/** The group path stored with an activity execution (in its activity_options). */
export function activityParallelPath(a: ActivityRow): ParallelEntry[] {
  const options = parseJson<{ parallel_group_path?: ParallelEntry[] }>(a.activity_options);
  return Array.isArray(options?.parallel_group_path) ? options.parallel_group_path : [];
}

/** True when every member of every group on the path has completed successfully. */
export function groupsCompleted(tx: Tx, runId: string, path: ParallelEntry[]): boolean {
  const status = tx.db.prepare("SELECT status FROM activity_executions WHERE workflow_run_id = ? AND sequence = ?");
  for (const group of path) {
    for (
      let seq = group.parallel_group_base_sequence;
      seq < group.parallel_group_base_sequence + group.parallel_group_size;
      seq += 1
    ) {
      const row = status.get(runId, seq) as { status: string } | undefined;
      if (row?.status !== "completed") return false;
    }
  }
  return true;
}
