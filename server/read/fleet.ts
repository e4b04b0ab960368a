import type { Db } from "../store/db";
import { parsePayload } from "../engine/rows";
import { REPAIR_POLICY, dispatchFailed, dispatchOverdue, leaseExpired } from "../engine/task-health";
import type { TaskRow } from "../engine/rows";
import { isoMicros, isoOffset, parseArray } from "./format";
import type { Json } from "./format";

/** A worker is stale once its heartbeat is older than max(2 × long-poll timeout, 60 s). */
export const WORKER_STALE_AFTER_SECONDS = 60;

interface WorkerRow {
  worker_id: string;
  namespace: string;
  task_queue: string;
  runtime: string | null;
  sdk_version: string | null;
  build_id: string | null;
  host: string | null;
  process_id: string | null;
  supported_workflow_types: string | null;
  supported_activity_types: string | null;
  max_concurrent_workflow_tasks: number | null;
  max_concurrent_activity_tasks: number | null;
  status: string;
  registered_at: number;
  last_heartbeat_at: number;
  expires_at: number | null;
  updated_at: number;
  max_concurrent_worker_sessions: number | null;
  available_workflow_slots: number | null;
  available_activity_slots: number | null;
  available_session_slots: number | null;
  process_metrics: string | null;
  heartbeat_interval_seconds: number | null;
  capabilities: string | null;
  workflow_definition_fingerprints: string | null;
}

function isStale(w: WorkerRow, now: number): boolean {
  return w.last_heartbeat_at < now - WORKER_STALE_AFTER_SECONDS * 1000;
}

/** `stale` past the window whatever the stored status (a draining worker too), else the stored one. */
function workerStatus(w: WorkerRow, now: number): string {
  return isStale(w, now) ? "stale" : w.status;
}

function strings(text: string | null): string[] {
  return (parseArray(text) ?? []).filter((v): v is string => typeof v === "string");
}

function jsonObject(text: string | null): Json | null {
  if (text === null) return null;
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Json) : null;
  } catch {
    return null;
  }
}

/**
 * A worker as the real server summarises it (durable-workflow/server
 * WorkerManagementController.php after @c6de4c3 `workerSummary`): the declaration, the task slots (free as
 * last reported, capacity as declared), the process metrics as reported, the cadence and the
 * status, `stale` once the heartbeat is older than the stale-after window.
 */
function workerView(w: WorkerRow, now: number): Json {
  const workflowCapacity = w.max_concurrent_workflow_tasks ?? 100;
  const activityCapacity = w.max_concurrent_activity_tasks ?? 100;
  const fingerprints = jsonObject(w.workflow_definition_fingerprints);
  return {
    worker_id: w.worker_id,
    namespace: w.namespace,
    task_queue: w.task_queue,
    runtime: w.runtime,
    sdk_version: w.sdk_version,
    build_id: w.build_id,
    supported_workflow_types: strings(w.supported_workflow_types),
    workflow_definition_fingerprints: fingerprints ?? [],
    supported_activity_types: strings(w.supported_activity_types),
    capabilities: strings(w.capabilities),
    max_concurrent_workflow_tasks: workflowCapacity,
    max_concurrent_activity_tasks: activityCapacity,
    max_concurrent_worker_sessions: w.max_concurrent_worker_sessions,
    task_slots: {
      workflow_available: w.available_workflow_slots,
      activity_available: w.available_activity_slots,
      session_available: w.available_session_slots,
      workflow_capacity: workflowCapacity,
      activity_capacity: activityCapacity,
      session_capacity: w.max_concurrent_worker_sessions,
    },
    process_metrics: jsonObject(w.process_metrics),
    heartbeat_interval_seconds: w.heartbeat_interval_seconds,
    status: workerStatus(w, now),
    last_heartbeat_at: isoMicros(w.last_heartbeat_at),
    registered_at: isoMicros(w.registered_at),
  };
}

/**
 * `GET /workers`: without a status filter only the live fleet (stale workers are left out), with
 * `status=stale` only the stale ones, with another status the live workers whose stored status it is;
 * `stale_after_seconds` names the window (WorkerManagementController.php after @c6de4c3 `workerMatchesStatus`).
 */
export function listWorkers(
  db: Db,
  namespace: string,
  now: number,
  filter: { taskQueue?: string; status?: string },
): Json {
  const rows = db
    .prepare(
      "SELECT * FROM worker_registrations WHERE namespace = @ns AND (@q IS NULL OR task_queue = @q) ORDER BY last_heartbeat_at DESC, worker_id",
    )
    .all({ ns: namespace, q: filter.taskQueue || null }) as WorkerRow[];
  const wanted = filter.status?.trim().toLowerCase() || null;
  const matches = (w: WorkerRow): boolean => {
    const stale = isStale(w, now);
    if (wanted === null) return !stale;
    if (wanted === "stale") return stale;
    return !stale && w.status === wanted;
  };
  return {
    workers: rows.filter(matches).map((w) => workerView(w, now)),
    stale_after_seconds: WORKER_STALE_AFTER_SECONDS,
  };
}

export function describeWorker(db: Db, namespace: string, workerId: string, now: number): Json | null {
  const w = db
    .prepare("SELECT * FROM worker_registrations WHERE namespace = ? AND worker_id = ?")
    .get(namespace, workerId) as WorkerRow | undefined;
  return w
    ? { ...workerView(w, now), updated_at: isoMicros(w.updated_at), stale_after_seconds: WORKER_STALE_AFTER_SECONDS }
    : null;
}

/** Active (non-stale) workers of a namespace: the fleet every liveness/compatibility view reads. */
export function activeWorkers(db: Db, namespace: string, now: number): WorkerRow[] {
  return db
    .prepare(
      "SELECT * FROM worker_registrations WHERE namespace = ? AND last_heartbeat_at >= ? AND status = 'active' ORDER BY worker_id",
    )
    .all(namespace, now - WORKER_STALE_AFTER_SECONDS * 1000) as WorkerRow[];
}

/** `worker_fleet` / `namespace_worker_fleet`: `{namespace, active_workers, active_worker_scopes, queues, build_ids, workers}`. */
export function fleetSummary(db: Db, namespace: string, now: number): Json {
  const workers = activeWorkers(db, namespace, now);
  const byId = new Map<string, { queues: Set<string>; builds: Set<string>; recorded: number }>();
  for (const w of workers) {
    const e = byId.get(w.worker_id) ?? { queues: new Set<string>(), builds: new Set<string>(), recorded: 0 };
    e.queues.add(w.task_queue);
    if (w.build_id) e.builds.add(w.build_id);
    e.recorded = Math.max(e.recorded, w.last_heartbeat_at);
    byId.set(w.worker_id, e);
  }
  return {
    namespace,
    active_workers: byId.size,
    active_worker_scopes: workers.length,
    queues: [...new Set(workers.map((w) => w.task_queue))].sort(),
    build_ids: [...new Set(workers.map((w) => w.build_id).filter((b): b is string => !!b))].sort(),
    workers: [...byId.entries()].map(([id, e]) => ({
      worker_id: id,
      queues: [...e.queues].sort(),
      build_ids: [...e.builds].sort(),
      recorded_at: isoMicros(e.recorded),
      expires_at: isoMicros(e.recorded + WORKER_STALE_AFTER_SECONDS * 1000),
    })),
  };
}

function ageLabel(seconds: number): string {
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  if (h > 0) return `${h}h${String(m).padStart(2, "0")}m`;
  if (m > 0) return `${m}m${String(s).padStart(2, "0")}s`;
  return `${s}s`;
}

interface QueueTaskRow extends TaskRow {
  workflow_instance_id: string;
}

/** The query-task broker's `queueAdmission` (server/engine/query-tasks.ts): its pending count lives in memory. */
export type QueryAdmission = (namespace: string, queue: string) => Json;

type QueuePoller = ReturnType<typeof queuePollers>[number];

/** The workers registered for the queue, as the queue detail lists them. */
function queuePollers(db: Db, namespace: string, name: string, now: number) {
  return (
    db
      .prepare("SELECT * FROM worker_registrations WHERE namespace = ? AND task_queue = ? ORDER BY worker_id")
      .all(namespace, name) as WorkerRow[]
  ).map((w) => ({
    worker_id: w.worker_id,
    runtime: w.runtime,
    sdk_version: w.sdk_version,
    build_id: w.build_id,
    last_heartbeat_at: isoMicros(w.last_heartbeat_at),
    heartbeat_expires_at: isoMicros(w.last_heartbeat_at + WORKER_STALE_AFTER_SECONDS * 1000),
    status: workerStatus(w, now),
    is_stale: isStale(w, now),
    supported_workflow_types: strings(w.supported_workflow_types),
    supported_activity_types: strings(w.supported_activity_types),
    max_concurrent_workflow_tasks: w.max_concurrent_workflow_tasks ?? 100,
    max_concurrent_activity_tasks: w.max_concurrent_activity_tasks ?? 100,
  }));
}

function isReadyDue(t: QueueTaskRow, now: number): boolean {
  return t.status === "ready" && (t.available_at === null || t.available_at <= now);
}

/** The queue's leased tasks, expired ones first, then by lease expiry; at most 50. */
function currentLeases(open: QueueTaskRow[], now: number): Json[] {
  return open
    .filter((t) => t.status === "leased")
    .sort(
      (a, b) =>
        Number(leaseExpired(b, now)) - Number(leaseExpired(a, now)) ||
        (a.lease_expires_at ?? 0) - (b.lease_expires_at ?? 0),
    )
    .slice(0, 50)
    .map((t) => {
      const p = parsePayload(t.payload);
      const base = {
        task_id: t.id,
        task_type: t.task_type,
        workflow_id: t.workflow_instance_id,
        run_id: t.workflow_run_id,
        lease_owner: t.lease_owner,
        lease_expires_at: isoMicros(t.lease_expires_at),
        is_expired: leaseExpired(t, now),
      };
      return t.task_type === "workflow"
        ? { ...base, workflow_task_attempt: t.attempt_count }
        : {
            ...base,
            activity_attempt_id: typeof p.activity_attempt_id === "string" ? p.activity_attempt_id : null,
            attempt_number: t.attempt_count,
          };
    });
}

/** Backlog, per-kind counts and pollers of the queue. */
function queueStats(open: QueueTaskRow[], pollers: QueuePoller[], now: number): Json {
  const kindStats = (kind: string): Json => {
    const rows = open.filter((t) => t.task_type === kind);
    return {
      ready_count: rows.filter((t) => isReadyDue(t, now)).length,
      leased_count: rows.filter((t) => t.status === "leased").length,
      expired_lease_count: rows.filter((t) => leaseExpired(t, now)).length,
    };
  };
  const readyDue = open
    .filter((t) => isReadyDue(t, now))
    .sort((a, b) => (a.available_at ?? a.created_at) - (b.available_at ?? b.created_at));
  const oldest = readyDue[0];
  const oldestAge = oldest ? Math.max(0, Math.floor((now - (oldest.available_at ?? oldest.created_at)) / 1000)) : 0;
  const activePollers = pollers.filter((p) => !p.is_stale && p.status === "active").length;
  return {
    approximate_backlog_count: readyDue.length,
    approximate_backlog_age: ageLabel(oldestAge),
    approximate_backlog_age_seconds: oldestAge,
    oldest_ready_task: oldest
      ? {
          task_id: oldest.id,
          task_type: oldest.task_type,
          workflow_id: oldest.workflow_instance_id,
          run_id: oldest.workflow_run_id,
          available_at: isoMicros(oldest.available_at ?? oldest.created_at),
          age_seconds: oldestAge,
        }
      : null,
    workflow_tasks: kindStats("workflow"),
    activity_tasks: kindStats("activity"),
    pollers: {
      active_count: activePollers,
      stale_count: pollers.length - activePollers,
      stale_after_seconds: WORKER_STALE_AFTER_SECONDS,
    },
  };
}

/** The queue's transport repair state, by the watchdog's predicates. */
function queueRepair(open: QueueTaskRow[], now: number): Json {
  const candidates = open.filter(
    (t) =>
      leaseExpired(t, now) ||
      ((dispatchFailed(t) || dispatchOverdue(t, now)) &&
        (t.repair_available_at === null || t.repair_available_at <= now)),
  ).length;
  return {
    candidates,
    dispatch_failed: open.filter((t) => dispatchFailed(t)).length,
    expired_leases: open.filter((t) => leaseExpired(t, now)).length,
    dispatch_overdue: open.filter((t) => dispatchOverdue(t, now)).length,
    needs_attention: candidates > 0,
    policy: { redispatch_after_seconds: REPAIR_POLICY.redispatch_after_seconds },
  };
}

/** How much more work the queue's active workers take, per task kind (`admission`). */
function queueAdmission(
  open: QueueTaskRow[],
  pollers: QueuePoller[],
  namespace: string,
  name: string,
  queryAdmission: QueryAdmission | undefined,
): Json {
  const admission = (kind: "workflow" | "activity"): Json => {
    const active = pollers.filter((p) => !p.is_stale && p.status === "active");
    const slots = active.reduce(
      (sum, p) => sum + (kind === "workflow" ? p.max_concurrent_workflow_tasks : p.max_concurrent_activity_tasks),
      0,
    );
    const leased = open.filter((t) => t.task_type === kind && t.status === "leased").length;
    const ready = open.filter((t) => t.task_type === kind && t.status === "ready").length;
    const available = Math.max(0, slots - leased);
    return {
      budget_source: `worker_registration.max_concurrent_${kind}_tasks`,
      active_worker_count: active.length,
      configured_slot_count: slots,
      leased_count: leased,
      ready_count: ready,
      available_slot_count: available,
      status: active.length === 0 ? "no_active_workers" : available === 0 ? "saturated" : "accepting",
    };
  };
  return {
    workflow_tasks: admission("workflow"),
    activity_tasks: admission("activity"),
    query_tasks: queryAdmission?.(namespace, name) ?? {
      budget_source: "server.query_tasks.max_pending_per_queue",
      max_pending_per_queue: 0,
      approximate_pending_count: 0,
      remaining_pending_capacity: 0,
      lock_required: true,
      lock_supported: false,
      // Only when no query broker is passed (reads outside the running server).
      status: "unavailable",
    },
  };
}

/** Counts, leases and repair state of one queue from its open tasks (index `workflow_tasks_poll`). */
export function queueDetail(
  db: Db,
  namespace: string,
  name: string,
  now: number,
  opts: { withAdmission: boolean; queryAdmission?: QueryAdmission },
): Json {
  const open = db
    .prepare(
      `SELECT t.*, r.workflow_instance_id FROM workflow_tasks t JOIN workflow_runs r ON r.id = t.workflow_run_id
       WHERE t.namespace = ? AND t.task_type IN ('workflow', 'activity') AND t.queue = ? AND t.status IN ('ready', 'leased')`,
    )
    .all(namespace, name) as QueueTaskRow[];
  const pollers = queuePollers(db, namespace, name, now);
  const result: Json = {
    name,
    pollers,
    stats: queueStats(open, pollers, now),
    current_leases: currentLeases(open, now),
    repair: queueRepair(open, now),
  };
  if (opts.withAdmission) result.admission = queueAdmission(open, pollers, namespace, name, opts.queryAdmission);
  return result;
}

/** Queue names: union of queues with tasks in the namespace and queues named by worker registrations. */
export function listTaskQueues(db: Db, namespace: string, now: number, queryAdmission?: QueryAdmission): Json {
  const names = new Set<string>();
  for (const r of db
    .prepare(
      "SELECT DISTINCT queue FROM workflow_tasks WHERE namespace = ? AND queue IS NOT NULL AND status IN ('ready', 'leased')",
    )
    .all(namespace) as { queue: string }[])
    names.add(r.queue);
  for (const r of db
    .prepare("SELECT DISTINCT task_queue FROM worker_registrations WHERE namespace = ?")
    .all(namespace) as { task_queue: string }[])
    names.add(r.task_queue);
  return {
    namespace,
    task_queues: [...names].sort().map((n) => {
      const d = queueDetail(db, namespace, n, now, { withAdmission: true, queryAdmission });
      return { name: n, stats: d.stats, repair: d.repair, admission: d.admission };
    }),
  };
}

interface NamespaceRow {
  name: string;
  description: string | null;
  retention_days: number;
  status: string;
  external_payload_storage: string | null;
  created_at: number;
  updated_at: number;
}

function namespaceView(n: NamespaceRow): Json {
  return {
    name: n.name,
    description: n.description,
    retention_days: n.retention_days,
    status: n.status,
    external_payload_storage: n.external_payload_storage ? (JSON.parse(n.external_payload_storage) as Json) : null,
    created_at: isoOffset(n.created_at),
    updated_at: isoOffset(n.updated_at),
  };
}

export function listNamespaces(db: Db): Json {
  return {
    namespaces: (db.prepare("SELECT * FROM namespaces ORDER BY name").all() as NamespaceRow[]).map(namespaceView),
  };
}

export function describeNamespace(db: Db, name: string): Json | null {
  const n = db.prepare("SELECT * FROM namespaces WHERE name = ?").get(name) as NamespaceRow | undefined;
  return n ? namespaceView(n) : null;
}

export function namespaceExists(db: Db, name: string): boolean {
  return db.prepare("SELECT 1 FROM namespaces WHERE name = ?").get(name) !== undefined;
}
