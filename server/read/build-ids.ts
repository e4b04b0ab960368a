/**
 * `GET /api/task-queues/{queue}/build-ids`: the rollout snapshot of one queue, as the real server's
 * app/Support/TaskQueueBuildIdRolloutSnapshot.php (durable-workflow/server, newest indexed version;
 * the drain-only predecessor is TaskQueueController::buildIds@11d35b7) builds it from worker
 * registrations, rollout rows and pending workflow tasks: cohorts by build id (null for the
 * unversioned), counts by effective status (stale before the declared status), runtimes and SDK
 * versions sorted, fingerprint conflicts per workflow type, and the status rank order.
 *
 * The twin stamps no compatibility marker on runs, so every pending workflow task falls to the
 * unversioned cohort, as it would for unstamped runs on the real server.
 */
import type { Db } from "../store/db";
import type { RolloutRow } from "../engine/build-id-rollouts";
import {
  buildIdKey,
  DRAIN_ACTIVE,
  DRAIN_DRAINING,
  rolloutsForQueue,
  selectedNewStartKey,
  zuluSecond,
} from "../engine/build-id-rollouts";
import { WORKER_STALE_AFTER_SECONDS } from "./fleet";
import { isoMicros } from "./format";

interface Group {
  build_id: string | null;
  active: number;
  stale: number;
  draining: number;
  total: number;
  runtimes: Set<string>;
  sdkVersions: Set<string>;
  fingerprints: Map<string, Set<string>>;
  lastHeartbeat: number | null;
  firstSeen: number | null;
}

interface Pending {
  total: number;
  ready: number;
  leased: number;
}

function newGroup(buildId: string | null): Group {
  return {
    build_id: buildId,
    active: 0,
    stale: 0,
    draining: 0,
    total: 0,
    runtimes: new Set(),
    sdkVersions: new Set(),
    fingerprints: new Map(),
    lastHeartbeat: null,
    firstSeen: null,
  };
}

/** `buildIdRolloutStatus`. */
export function rolloutStatus(active: number, draining: number, stale: number, drainIntent: string): string {
  const intentDraining = drainIntent === DRAIN_DRAINING;
  if (active > 0) return intentDraining || draining > 0 ? "active_with_draining" : "active";
  if (draining > 0) return "draining";
  if (intentDraining) return "draining";
  return stale > 0 ? "stale_only" : "no_workers";
}

const STATUS_RANK: Record<string, number> = { active: 0, active_with_draining: 1, draining: 2, stale_only: 3 };

function fingerprintMap(text: string | null): Record<string, string> {
  if (!text) return {};
  try {
    const v: unknown = JSON.parse(text);
    if (!v || typeof v !== "object" || Array.isArray(v)) return {};
    const out: Record<string, string> = {};
    for (const [k, f] of Object.entries(v as Record<string, unknown>))
      if (typeof f === "string" && k.trim() !== "" && f.trim() !== "") out[k.trim()] = f.trim();
    return out;
  } catch {
    return {};
  }
}

function hasColumn(db: Db, table: string, column: string): boolean {
  return (db.prepare(`SELECT name FROM pragma_table_info('${table}')`).all() as { name: string }[]).some(
    (c) => c.name === column,
  );
}

function pendingByKey(db: Db, namespace: string, taskQueue: string): Map<string, Pending> {
  const rows = db
    .prepare(
      `SELECT status, COUNT(*) AS n FROM workflow_tasks
       WHERE namespace = ? AND task_type = 'workflow' AND queue = ? AND status IN ('ready', 'leased') GROUP BY status`,
    )
    .all(namespace, taskQueue) as { status: string; n: number }[];
  const out = new Map<string, Pending>();
  for (const r of rows) {
    const p = out.get("") ?? { total: 0, ready: 0, leased: 0 };
    p.total += r.n;
    if (r.status === "leased") p.leased += r.n;
    else p.ready += r.n;
    out.set("", p);
  }
  return out;
}

/** `pendingWorkflowTaskDiagnostic`. */
function pendingDiagnostic(p: Pending | undefined, buildId: string | null, activeWorkers: number) {
  const total = p?.total ?? 0;
  let status = "idle";
  let signal: string | null = null;
  let message: string | null = null;
  if (total > 0) {
    status = "pending";
    if (buildId !== null && activeWorkers === 0) {
      status = "no_compatible_worker";
      signal = "no_compatible_worker";
      message = `This build id has ${total} pending workflow task${total === 1 ? "" : "s"} but no active compatible worker.`;
    }
  }
  return {
    status,
    operator_visible_signal: signal,
    message,
    total_count: total,
    ready_count: p?.ready ?? 0,
    leased_count: p?.leased ?? 0,
  };
}

export function buildIdSnapshot(db: Db, namespace: string, taskQueue: string, now: number) {
  const staleCutoff = now - WORKER_STALE_AFTER_SECONDS * 1000;
  const withFingerprints = hasColumn(db, "worker_registrations", "workflow_definition_fingerprints");
  const workers = db
    .prepare(
      `SELECT build_id, status, runtime, sdk_version, last_heartbeat_at, created_at${withFingerprints ? ", workflow_definition_fingerprints" : ""}
       FROM worker_registrations WHERE namespace = ? AND task_queue = ? ORDER BY last_heartbeat_at DESC, worker_id`,
    )
    .all(namespace, taskQueue) as {
    build_id: string | null;
    status: string | null;
    runtime: string | null;
    sdk_version: string | null;
    last_heartbeat_at: number | null;
    created_at: number | null;
    workflow_definition_fingerprints?: string | null;
  }[];

  const groups = new Map<string, Group>();
  for (const w of workers) {
    const key = buildIdKey(w.build_id);
    const g = groups.get(key) ?? newGroup(key === "" ? null : key);
    groups.set(key, g);
    const stale = w.last_heartbeat_at !== null && w.last_heartbeat_at < staleCutoff;
    const effective = stale ? "stale" : (w.status ?? "active");
    g.total++;
    if (effective === "stale") g.stale++;
    else if (effective === "draining") g.draining++;
    else g.active++;
    if (w.runtime?.trim()) g.runtimes.add(w.runtime.trim());
    if (w.sdk_version?.trim()) g.sdkVersions.add(w.sdk_version.trim());
    for (const [type, fp] of Object.entries(fingerprintMap(w.workflow_definition_fingerprints ?? null))) {
      const set = g.fingerprints.get(type) ?? new Set<string>();
      set.add(fp);
      g.fingerprints.set(type, set);
    }
    if (w.last_heartbeat_at !== null && (g.lastHeartbeat === null || w.last_heartbeat_at > g.lastHeartbeat))
      g.lastHeartbeat = w.last_heartbeat_at;
    if (w.created_at !== null && (g.firstSeen === null || w.created_at < g.firstSeen)) g.firstSeen = w.created_at;
  }

  const rollouts = rolloutsForQueue(db, namespace, taskQueue);
  const selected = selectedNewStartKey(rollouts.values());
  const pending = pendingByKey(db, namespace, taskQueue);
  for (const key of pending.keys())
    if (!groups.has(key) && !rollouts.has(key)) groups.set(key, newGroup(key === "" ? null : key));

  const entry = (key: string, g: Group, r: RolloutRow | undefined) => {
    const intent = r?.drain_intent ?? DRAIN_ACTIVE;
    let fpCount = 0;
    const conflicts: { workflow_type: string; fingerprint_count: number }[] = [];
    for (const [type, set] of g.fingerprints) {
      fpCount += set.size;
      if (set.size > 1) conflicts.push({ workflow_type: type, fingerprint_count: set.size });
    }
    conflicts.sort((a, b) => (a.workflow_type < b.workflow_type ? -1 : a.workflow_type > b.workflow_type ? 1 : 0));
    return {
      build_id: g.build_id,
      rollout_status: rolloutStatus(g.active, g.draining, g.stale, intent),
      drain_intent: intent,
      drained_at: zuluSecond(r?.drained_at),
      promoted_at: zuluSecond(r?.promoted_at),
      rolled_back_at: zuluSecond(r?.rolled_back_at),
      new_start_selected: key === selected,
      active_worker_count: g.active,
      draining_worker_count: g.draining,
      stale_worker_count: g.stale,
      total_worker_count: g.total,
      runtimes: [...g.runtimes].sort(),
      sdk_versions: [...g.sdkVersions].sort(),
      workflow_definition_fingerprint_count: fpCount,
      workflow_definition_fingerprint_conflicts: conflicts,
      last_heartbeat_at: g.lastHeartbeat === null ? null : isoMicros(g.lastHeartbeat),
      first_seen_at: g.firstSeen === null ? null : isoMicros(g.firstSeen),
      pending_workflow_tasks: pendingDiagnostic(pending.get(key), g.build_id, g.active),
    };
  };

  const entries = [...groups].map(([key, g]) => entry(key, g, rollouts.get(key)));
  for (const [key, r] of rollouts) if (!groups.has(key)) entries.push(entry(key, newGroup(key === "" ? null : key), r));

  const rank = (e: (typeof entries)[number]) =>
    (STATUS_RANK[e.rollout_status] ?? 4) * 2 + (e.build_id === null ? 1 : 0);
  entries.sort((a, b) => {
    const d = rank(a) - rank(b);
    if (d !== 0) return d;
    const ha = a.last_heartbeat_at ?? "";
    const hb = b.last_heartbeat_at ?? "";
    return hb < ha ? -1 : hb > ha ? 1 : 0;
  });

  return {
    namespace,
    task_queue: taskQueue,
    stale_after_seconds: WORKER_STALE_AFTER_SECONDS,
    build_ids: entries,
  };
}
