import type { BuildIdAction } from "@/lib/actions/build-id-rules";
import type { BuildIdCohort, TaskQueueBuildIds } from "@/lib/dw/schemas-build-ids";

/**
 * The build-id rollout of one task queue as the queue view shows it: a row per cohort, in the
 * server's order (TaskQueueBuildIdRolloutSnapshot ranks active, then draining, then stale), with a
 * tone for its status and which rollout actions make sense for it. The server stays the judge
 * (a promote may still be refused with its blockages); these rules keep the console from offering
 * what would do nothing.
 */

export type RolloutTone = "ok" | "warn" | "muted" | "bad";

export interface BuildIdRow {
  key: string;
  buildId: string | null;
  status: string;
  tone: RolloutTone;
  draining: boolean;
  selectedForNewStarts: boolean;
  activeWorkers: number;
  drainingWorkers: number;
  staleWorkers: number;
  totalWorkers: number;
  runtimes: string[];
  sdkVersions: string[];
  conflicts: { workflowType: string; fingerprints: number }[];
  drainedAt: string | null;
  promotedAt: string | null;
  rolledBackAt: string | null;
  lastHeartbeatAt: string | null;
  pendingMessage: string | null;
  /** The actions whose effect this cohort does not already have. */
  offers: Record<BuildIdAction, boolean>;
}

const TONES: Record<string, RolloutTone> = {
  active: "ok",
  active_with_draining: "warn",
  draining: "warn",
  stale_only: "muted",
  no_workers: "muted",
};

/** A stable key for a cohort (`null` is the unversioned one). */
export function cohortKey(buildId: string | null): string {
  return buildId === null ? "∅unversioned" : `b:${buildId}`;
}

export function buildIdRow(c: BuildIdCohort): BuildIdRow {
  const draining = c.drain_intent === "draining";
  const selected = c.new_start_selected === true;
  return {
    key: cohortKey(c.build_id),
    buildId: c.build_id,
    status: c.rollout_status,
    tone: TONES[c.rollout_status] ?? "muted",
    draining,
    selectedForNewStarts: selected,
    activeWorkers: c.active_worker_count,
    drainingWorkers: c.draining_worker_count,
    staleWorkers: c.stale_worker_count,
    totalWorkers: c.total_worker_count,
    runtimes: c.runtimes,
    sdkVersions: c.sdk_versions,
    conflicts: (c.workflow_definition_fingerprint_conflicts ?? []).map((x) => ({
      workflowType: x.workflow_type,
      fingerprints: x.fingerprint_count,
    })),
    drainedAt: c.drained_at ?? null,
    promotedAt: c.promoted_at ?? null,
    rolledBackAt: c.rolled_back_at ?? null,
    lastHeartbeatAt: c.last_heartbeat_at,
    pendingMessage: c.pending_workflow_tasks?.message ?? null,
    offers: {
      // The server refuses a draining cohort's promotion (fleet_is_draining): resume comes first.
      promote: !selected && !draining,
      drain: !draining,
      resume: draining,
    },
  };
}

export function buildIdRows(snapshot: TaskQueueBuildIds): BuildIdRow[] {
  return snapshot.build_ids.map(buildIdRow);
}

/**
 * Whether a read-back rollout shows an action's effect on the cohort: promote → selected for new
 * starts; drain → drain intent draining; resume → drain intent active.
 */
export function rolloutHolds(snapshot: TaskQueueBuildIds, action: BuildIdAction, buildId: string | null): boolean {
  const cohort = snapshot.build_ids.find((c) => c.build_id === buildId);
  if (!cohort) return false;
  switch (action) {
    case "promote":
      return cohort.new_start_selected === true;
    case "drain":
      return cohort.drain_intent === "draining";
    case "resume":
      return cohort.drain_intent !== "draining";
  }
}
