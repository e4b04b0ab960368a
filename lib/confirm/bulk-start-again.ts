import { againWorkflowId } from "@/lib/actions/contract";

/**
 * "Start again" for a failure group: the dry-run plan (which runs get a new workflow, under which
 * id) before anything is sent. The outcome is tallied with {@link bulkOutcome} (lib/confirm/bulk.ts)
 * over the new runs. Pure.
 */

export type StartAgainBucket = "start" | "skip_same_workflow";

export interface PlannedStart {
  workflowId: string;
  runId: string;
  bucket: StartAgainBucket;
  /** The id the new workflow is started under (only for `start`). */
  newWorkflowId: string | null;
}

export interface StartAgainPlan {
  runs: PlannedStart[];
  counts: Readonly<Record<StartAgainBucket, number>>;
}

/**
 * One new workflow per old workflow id: two failed runs of the same workflow (a continue-as-new
 * chain, an earlier attempt) would ask for the same new id, and the second start would be refused
 * as a duplicate, so only the newest run of each workflow (the first in the group's order) is kept.
 */
export function startAgainPlan(members: readonly { workflowId: string; runId: string }[], now: number): StartAgainPlan {
  const seen = new Set<string>();
  const runs = members.map((member): PlannedStart => {
    if (seen.has(member.workflowId)) return { ...member, bucket: "skip_same_workflow", newWorkflowId: null };
    seen.add(member.workflowId);
    return { ...member, bucket: "start", newWorkflowId: againWorkflowId(member.workflowId, now) };
  });
  return {
    runs,
    counts: {
      start: runs.filter((run) => run.bucket === "start").length,
      skip_same_workflow: runs.filter((run) => run.bucket === "skip_same_workflow").length,
    },
  };
}
