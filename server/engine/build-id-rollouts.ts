/**
 * Worker versioning: the operator's rollout intent per (namespace, task queue, build id) and the
 * deployment lifecycle over it, as the real server keeps them.
 *
 * Sources (read, not copied):
 * - durable-workflow/server@11d35b7 app/Models/WorkerBuildIdRollout.php (the '' key of the unversioned
 *   cohort, `active` / `draining`) and TaskQueueController.php `drainBuildId` / `resumeBuildId`.
 * - durable-workflow/server, newest indexed app/Http/Controllers/Api/TaskQueueController.php
 *   (`promoteBuildId`, `setBuildIdDrainIntent`, the 409 rejection payload), app/Support/DeploymentLifecycleService.php
 *   @b02ec61 (find / promote / drain / resume / rollback, the `namespace/task_queue@build_id` name),
 *   app/Http/Controllers/Api/DeploymentController.php@b02ec61 (answers, 400/404/409, blockage order) and
 *   app/Support/WorkerBuildIdNewStartSelector.php (the cohort selected for new starts).
 * - durable-workflow/workflow@1b65b1b src/V2/Support/WorkerDeployment.php (state derivation, `toArray`),
 *   DeploymentLifecyclePlan.php (every blockage in its words), DeploymentBlockage.php, and
 *   src/V2/Enums/DeploymentLifecycleState.php@74cc963.
 */
import type { Db } from "../store/db";
import { EngineError, validationError } from "./errors";

export const DRAIN_ACTIVE = "active";
export const DRAIN_DRAINING = "draining";
export type DrainIntent = typeof DRAIN_ACTIVE | typeof DRAIN_DRAINING;

export interface RolloutRow {
  id: number;
  namespace: string;
  task_queue: string;
  build_id: string;
  drain_intent: string;
  drained_at: number | null;
  promoted_at: number | null;
  rolled_back_at: number | null;
}

/** `WorkerBuildIdRollout::buildIdKey`: '' stands for the unversioned cohort. */
export function buildIdKey(buildId: string | null | undefined): string {
  return typeof buildId === "string" ? buildId.trim() : "";
}

export function publicBuildId(key: string): string | null {
  return key === "" ? null : key;
}

/** `ControlPlaneTimestamp::zuluSecond`: whole seconds, `Z`. */
export function zuluSecond(ms: number | null | undefined): string | null {
  if (ms === null || ms === undefined) return null;
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");
}

/** Carbon `toIso8601String()`, as `WorkerDeployment::toArray` writes its times. */
function iso8601(ms: number | null): string | null {
  if (ms === null) return null;
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, "+00:00");
}

/**
 * The body every build-id mutation takes: `build_id` => present|nullable|string|max:255, in
 * Laravel's words; blank means the unversioned cohort.
 */
export function parseBuildIdBody(body: unknown): string | null {
  const b = (body && typeof body === "object" && !Array.isArray(body) ? body : {}) as Record<string, unknown>;
  if (!Object.prototype.hasOwnProperty.call(b, "build_id"))
    throw validationError({ build_id: ["The build id field must be present."] });
  const v = b.build_id;
  if (v === null) return null;
  if (typeof v !== "string") throw validationError({ build_id: ["The build id field must be a string."] });
  if (v.length > 255)
    throw validationError({ build_id: ["The build id field must not be greater than 255 characters."] });
  return v.trim() === "" ? null : v.trim();
}

export function rolloutsForQueue(db: Db, namespace: string, taskQueue: string): Map<string, RolloutRow> {
  const rows = db
    .prepare("SELECT * FROM workflow_worker_build_id_rollouts WHERE namespace = ? AND task_queue = ? ORDER BY id")
    .all(namespace, taskQueue) as RolloutRow[];
  return new Map(rows.map((r) => [r.build_id, r]));
}

function loadRollout(db: Db, namespace: string, taskQueue: string, buildId: string | null): RolloutRow | undefined {
  return db
    .prepare("SELECT * FROM workflow_worker_build_id_rollouts WHERE namespace = ? AND task_queue = ? AND build_id = ?")
    .get(namespace, taskQueue, buildIdKey(buildId)) as RolloutRow | undefined;
}

/**
 * `WorkerBuildIdNewStartSelector`: among rollouts with drain intent active, never rolled back and
 * promoted, the newest promotion (then the newest row) is selected for fresh starts.
 */
export function selectedNewStartKey(rollouts: Iterable<RolloutRow>): string | null {
  let selected: RolloutRow | null = null;
  for (const r of rollouts) {
    if (r.drain_intent !== DRAIN_ACTIVE || r.rolled_back_at !== null || r.promoted_at === null) continue;
    if (
      selected === null ||
      r.promoted_at > selected.promoted_at! ||
      (r.promoted_at === selected.promoted_at && r.id > selected.id)
    )
      selected = r;
  }
  return selected ? selected.build_id : null;
}

function upsertRollout(
  db: Db,
  now: number,
  namespace: string,
  taskQueue: string,
  buildId: string | null,
  apply: (row: RolloutRow) => void,
): RolloutRow {
  const row: RolloutRow = loadRollout(db, namespace, taskQueue, buildId) ?? {
    id: 0,
    namespace,
    task_queue: taskQueue,
    build_id: buildIdKey(buildId),
    drain_intent: DRAIN_ACTIVE,
    drained_at: null,
    promoted_at: null,
    rolled_back_at: null,
  };
  apply(row);
  db.prepare(
    `INSERT INTO workflow_worker_build_id_rollouts (namespace, task_queue, build_id, drain_intent, drained_at, promoted_at, rolled_back_at, created_at, updated_at)
     VALUES (@namespace, @task_queue, @build_id, @drain_intent, @drained_at, @promoted_at, @rolled_back_at, @now, @now)
     ON CONFLICT(namespace, task_queue, build_id) DO UPDATE SET drain_intent = excluded.drain_intent, drained_at = excluded.drained_at,
       promoted_at = excluded.promoted_at, rolled_back_at = excluded.rolled_back_at, updated_at = excluded.updated_at`,
  ).run({
    namespace: row.namespace,
    task_queue: row.task_queue,
    build_id: row.build_id,
    drain_intent: row.drain_intent,
    drained_at: row.drained_at,
    promoted_at: row.promoted_at,
    rolled_back_at: row.rolled_back_at,
    now,
  });
  return loadRollout(db, namespace, taskQueue, buildId)!;
}

/** Registrations of the cohort: a null build id matches rows with none or a blank one. */
function cohortWhere(buildId: string | null): { sql: string; params: unknown[] } {
  return buildId === null
    ? { sql: "(build_id IS NULL OR TRIM(build_id) = '')", params: [] }
    : { sql: "build_id = ?", params: [buildId] };
}

/** `stampWorkerDrainStatus`: draining stamps every worker of the cohort; resuming only those draining. */
function stampWorkers(
  db: Db,
  now: number,
  namespace: string,
  taskQueue: string,
  buildId: string | null,
  draining: boolean,
) {
  const cohort = cohortWhere(buildId);
  db.prepare(
    `UPDATE worker_registrations SET status = ?, updated_at = ? WHERE namespace = ? AND task_queue = ? AND ${cohort.sql}` +
      (draining ? "" : " AND status = 'draining'"),
  ).run(draining ? DRAIN_DRAINING : DRAIN_ACTIVE, now, namespace, taskQueue, ...cohort.params);
}

/** What the legacy drain / resume answer, and promote's `new_start_selected`. */
function isSelected(db: Db, namespace: string, taskQueue: string, buildId: string | null): boolean {
  return selectedNewStartKey(rolloutsForQueue(db, namespace, taskQueue).values()) === buildIdKey(buildId);
}

/**
 * `POST /api/task-queues/{queue}/build-ids/{drain|resume}` (`setBuildIdDrainIntent`): idempotent, no
 * lifecycle check; a repeated drain keeps its `drained_at`; resume clears it.
 */
export function setDrainIntent(
  db: Db,
  now: number,
  namespace: string,
  taskQueue: string,
  buildId: string | null,
  intent: DrainIntent,
) {
  const draining = intent === DRAIN_DRAINING;
  const row = upsertRollout(db, now, namespace, taskQueue, buildId, (r) => {
    const was = r.drain_intent === DRAIN_DRAINING;
    r.drain_intent = intent;
    r.drained_at = draining ? (was ? r.drained_at : now) : null;
  });
  stampWorkers(db, now, namespace, taskQueue, buildId, draining);
  return {
    namespace,
    task_queue: taskQueue,
    build_id: buildId,
    drain_intent: row.drain_intent,
    drained_at: zuluSecond(row.drained_at),
    promoted_at: zuluSecond(row.promoted_at),
    rolled_back_at: zuluSecond(row.rolled_back_at),
    new_start_selected: isSelected(db, namespace, taskQueue, buildId),
  };
}

// ── Deployments ──────────────────────────────────────────────────────────────────────────────

export type DeploymentState = "pending" | "active" | "promoted" | "draining" | "drained" | "rolled_back";

export interface Deployment {
  namespace: string;
  taskQueue: string;
  buildId: string | null;
  state: DeploymentState;
  requiredCompatibility: string | null;
  promotedAt: number | null;
  drainedAt: number | null;
  rolledBackAt: number | null;
}

/** `WorkerDeployment::deriveState`. */
function deriveState(r: Pick<RolloutRow, "drain_intent" | "drained_at" | "promoted_at" | "rolled_back_at">) {
  if (r.rolled_back_at !== null) return "rolled_back" as const;
  if (r.drain_intent === "draining" || r.drained_at !== null)
    return r.drain_intent === "drained" ? ("drained" as const) : ("draining" as const);
  if (r.drain_intent === "drained") return "drained" as const;
  if (r.promoted_at !== null) return "promoted" as const;
  return "active" as const;
}

function fromRollout(r: RolloutRow): Deployment {
  const buildId = publicBuildId(r.build_id);
  return {
    namespace: r.namespace,
    taskQueue: r.task_queue,
    buildId,
    state: deriveState(r),
    requiredCompatibility: buildId,
    promotedAt: r.promoted_at,
    drainedAt: r.drained_at,
    rolledBackAt: r.rolled_back_at,
  };
}

function forActiveBuild(namespace: string, taskQueue: string, buildId: string | null): Deployment {
  return {
    namespace,
    taskQueue,
    buildId,
    state: "active",
    requiredCompatibility: buildId,
    promotedAt: null,
    drainedAt: null,
    rolledBackAt: null,
  };
}

export function deploymentName(d: Pick<Deployment, "namespace" | "taskQueue" | "buildId">): string {
  return `${d.namespace}/${d.taskQueue}@${d.buildId ?? "unversioned"}`;
}

/** `WorkerDeployment::toArray` (the twin keeps no policy, fingerprint or workflow types: Pinned, null, []). */
export function deploymentToArray(d: Deployment) {
  return {
    name: deploymentName(d),
    namespace: d.namespace,
    task_queue: d.taskQueue,
    build_id: d.buildId,
    state: d.state,
    accepts_new_work: d.state === "pending" || d.state === "active" || d.state === "promoted",
    compatibility_policy: "pinned",
    required_compatibility: d.requiredCompatibility,
    recorded_fingerprint: null,
    workflow_types: [] as string[],
    promoted_at: iso8601(d.promotedAt),
    drained_at: iso8601(d.drainedAt),
    rolled_back_at: iso8601(d.rolledBackAt),
  };
}

/** `DeploymentLifecycleService::find`: the rollout row, else a registration of the cohort, else none. */
export function findDeployment(
  db: Db,
  namespace: string,
  taskQueue: string,
  buildId: string | null,
): Deployment | null {
  const row = loadRollout(db, namespace, taskQueue, buildId);
  if (row) return fromRollout(row);
  const cohort = cohortWhere(buildId);
  const worker = db
    .prepare(`SELECT 1 FROM worker_registrations WHERE namespace = ? AND task_queue = ? AND ${cohort.sql} LIMIT 1`)
    .get(namespace, taskQueue, ...cohort.params);
  return worker ? forActiveBuild(namespace, taskQueue, buildId) : null;
}

/** `listForNamespace`: one per (queue, build id) of the registrations by queue and build id, then rollouts with none. */
export function listDeployments(db: Db, namespace: string): Deployment[] {
  const rollouts = db
    .prepare("SELECT * FROM workflow_worker_build_id_rollouts WHERE namespace = ? ORDER BY task_queue, build_id")
    .all(namespace) as RolloutRow[];
  const byKey = new Map(rollouts.map((r) => [`${r.task_queue}|${r.build_id}`, r]));
  const workers = db
    .prepare("SELECT task_queue, build_id FROM worker_registrations WHERE namespace = ? ORDER BY task_queue, build_id")
    .all(namespace) as { task_queue: string; build_id: string | null }[];
  const seen = new Set<string>();
  const out: Deployment[] = [];
  for (const w of workers) {
    const queue = w.task_queue.trim();
    if (queue === "") continue;
    const key = `${queue}|${buildIdKey(w.build_id)}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const r = byKey.get(key);
    out.push(r ? fromRollout(r) : forActiveBuild(namespace, queue, publicBuildId(buildIdKey(w.build_id))));
  }
  for (const [key, r] of byKey) if (!seen.has(key)) out.push(fromRollout(r));
  return out;
}

export interface Blockage {
  reason: string;
  message: string;
  scope: Record<string, string | null>;
  expected_resolution: string | null;
}

function scopeOf(d: Deployment): Record<string, string | null> {
  const scope: Record<string, string | null> = {
    namespace: d.namespace,
    task_queue: d.taskQueue,
    build_id: d.buildId,
    state: d.state,
  };
  if (d.requiredCompatibility !== null) scope.required_compatibility = d.requiredCompatibility;
  return scope;
}

/** The blockage order DeploymentController pins: configuration, then fleet, then safety. */
const BLOCKAGE_RANK: Record<string, number> = {
  unknown_deployment: 0,
  incompatible_policy: 0,
  fleet_is_draining: 0,
  no_compatible_workers: 1,
  missing_worker_heartbeat: 1,
  fingerprint_mismatch: 1,
  replay_safety_failed: 2,
};

export function orderBlockages(b: Blockage[]): Blockage[] {
  return b
    .map((x, i) => ({ x, i }))
    .sort((p, q) => (BLOCKAGE_RANK[p.x.reason] ?? 3) - (BLOCKAGE_RANK[q.x.reason] ?? 3) || p.i - q.i)
    .map((p) => p.x);
}

/**
 * `fleetSnapshot` (WorkerCompatibilityFleet over the queue): live registrations of the queue, and
 * those advertising the required marker, which for the twin is the build id a worker registered.
 */
function fleetSnapshot(db: Db, now: number, staleAfterMs: number, d: Deployment) {
  const rows = db
    .prepare(
      "SELECT build_id FROM worker_registrations WHERE namespace = ? AND task_queue = ? AND last_heartbeat_at >= ?",
    )
    .all(d.namespace, d.taskQueue, now - staleAfterMs) as { build_id: string | null }[];
  const advertised = [...new Set(rows.map((r) => buildIdKey(r.build_id)).filter((k) => k !== ""))].sort();
  return {
    active: rows.length,
    supporting: rows.filter((r) => buildIdKey(r.build_id) === buildIdKey(d.requiredCompatibility)).length,
    advertised,
  };
}

/** `DeploymentLifecyclePlan::evaluatePromote` (the twin records no fingerprint and runs no replay guard). */
function evaluatePromote(d: Deployment, fleet: ReturnType<typeof fleetSnapshot>): Blockage[] {
  const name = deploymentName(d);
  if (d.state === "drained" || d.state === "rolled_back")
    return [
      {
        reason: "incompatible_policy",
        message: `Deployment ${name} is ${d.state} and cannot be promoted; recreate the deployment first.`,
        scope: scopeOf(d),
        expected_resolution: "Create a new active deployment for this build id, then promote it.",
      },
    ];
  const out: Blockage[] = [];
  if (d.state === "draining")
    out.push({
      reason: "fleet_is_draining",
      message: `Deployment ${name} is draining; resume it before promoting.`,
      scope: scopeOf(d),
      expected_resolution: "Resume the deployment, then retry promotion.",
    });
  if (d.requiredCompatibility !== null) {
    if (fleet.active === 0)
      out.push({
        reason: "no_compatible_workers",
        message: `No workers are heartbeating against ${d.namespace}/${d.taskQueue}; promotion would route fresh tasks to a fleet that cannot claim them.`,
        scope: scopeOf(d),
        expected_resolution: `Start at least one worker that advertises compatibility [${d.requiredCompatibility}] for this task queue, then retry promotion.`,
      });
    else if (fleet.supporting === 0)
      out.push({
        reason: "missing_worker_heartbeat",
        message: `Fleet has ${fleet.active} active worker(s) on ${d.namespace}/${d.taskQueue} but none advertise required compatibility [${d.requiredCompatibility}]; advertised markers: [${fleet.advertised.join(", ")}].`,
        scope: scopeOf(d),
        expected_resolution: `Roll a worker that supports compatibility [${d.requiredCompatibility}] before promoting.`,
      });
  }
  return out;
}

export interface LifecycleResult {
  deployment: Deployment | null;
  blockages: Blockage[];
}

function unknown(namespace: string, taskQueue: string, buildId: string | null, rollback: boolean): LifecycleResult {
  const target = `${namespace}/${taskQueue}@${buildId ?? "unversioned"}`;
  return {
    deployment: null,
    blockages: [
      {
        reason: "unknown_deployment",
        message: rollback
          ? `No deployment is registered for ${target}; nothing to roll back.`
          : `No deployment is registered for ${target}.`,
        scope: { namespace, task_queue: taskQueue, build_id: buildId },
        expected_resolution: rollback ? null : "Roll a worker that heartbeats this build id, then retry promotion.",
      },
    ],
  };
}

export interface LifecycleContext {
  db: Db;
  now: number;
  staleAfterMs: number;
}

export function promoteDeployment(
  { db, now, staleAfterMs }: LifecycleContext,
  namespace: string,
  taskQueue: string,
  buildId: string | null,
): LifecycleResult {
  const d = findDeployment(db, namespace, taskQueue, buildId);
  if (!d) return unknown(namespace, taskQueue, buildId, false);
  const blockages = evaluatePromote(d, fleetSnapshot(db, now, staleAfterMs, d));
  if (blockages.length > 0) return { deployment: d, blockages };
  const row = upsertRollout(db, now, namespace, taskQueue, buildId, (r) => {
    r.drain_intent = DRAIN_ACTIVE;
    r.drained_at = null;
    r.promoted_at = now;
    r.rolled_back_at = null;
  });
  return { deployment: { ...fromRollout(row), state: "promoted" }, blockages: [] };
}

export function drainDeployment(
  { db, now }: LifecycleContext,
  namespace: string,
  taskQueue: string,
  buildId: string | null,
): LifecycleResult {
  const d = findDeployment(db, namespace, taskQueue, buildId) ?? forActiveBuild(namespace, taskQueue, buildId);
  if (d.state === "rolled_back")
    return {
      deployment: d,
      blockages: [
        {
          reason: "incompatible_policy",
          message: `Deployment ${deploymentName(d)} is rolled back; drain is unnecessary because the deployment no longer accepts work.`,
          scope: scopeOf(d),
          expected_resolution: "No action required; the deployment is already terminal.",
        },
      ],
    };
  const row = upsertRollout(db, now, namespace, taskQueue, buildId, (r) => {
    const was = r.drain_intent === DRAIN_DRAINING;
    r.drain_intent = DRAIN_DRAINING;
    r.drained_at = was ? r.drained_at : now;
  });
  return { deployment: fromRollout(row), blockages: [] };
}

export function resumeDeployment(
  { db, now }: LifecycleContext,
  namespace: string,
  taskQueue: string,
  buildId: string | null,
): LifecycleResult {
  const d = findDeployment(db, namespace, taskQueue, buildId) ?? forActiveBuild(namespace, taskQueue, buildId);
  const name = deploymentName(d);
  if (d.state === "drained")
    return {
      deployment: d,
      blockages: [
        {
          reason: "incompatible_policy",
          message: `Deployment ${name} is fully drained; resume is not allowed once a deployment has reached the drained terminal state — recreate it instead.`,
          scope: scopeOf(d),
          expected_resolution: "Create a new active deployment for this build id.",
        },
      ],
    };
  if (d.state === "rolled_back")
    return {
      deployment: d,
      blockages: [
        {
          reason: "incompatible_policy",
          message: `Deployment ${name} is rolled back; promote a different deployment rather than resuming this one.`,
          scope: scopeOf(d),
          expected_resolution:
            "Promote the prior healthy deployment, or create a new active deployment for this build id.",
        },
      ],
    };
  const row = upsertRollout(db, now, namespace, taskQueue, buildId, (r) => {
    r.drain_intent = DRAIN_ACTIVE;
    r.drained_at = null;
  });
  stampWorkers(db, now, namespace, taskQueue, buildId, false);
  return { deployment: fromRollout(row), blockages: [] };
}

export function rollbackDeployment(
  { db, now }: LifecycleContext,
  namespace: string,
  taskQueue: string,
  buildId: string | null,
): LifecycleResult {
  const d = findDeployment(db, namespace, taskQueue, buildId);
  if (!d) return unknown(namespace, taskQueue, buildId, true);
  const name = deploymentName(d);
  if (d.state === "pending")
    return {
      deployment: d,
      blockages: [
        {
          reason: "incompatible_policy",
          message: `Deployment ${name} has never been promoted; nothing to roll back.`,
          scope: scopeOf(d),
          expected_resolution: "Promote the deployment first, or drain it directly if you want to remove it.",
        },
      ],
    };
  if (d.state === "rolled_back")
    return {
      deployment: d,
      blockages: [
        {
          reason: "incompatible_policy",
          message: `Deployment ${name} is already rolled back.`,
          scope: scopeOf(d),
          expected_resolution: "No action required; the deployment is already terminal.",
        },
      ],
    };
  const row = upsertRollout(db, now, namespace, taskQueue, buildId, (r) => {
    r.rolled_back_at = now;
    r.promoted_at = null;
  });
  return { deployment: { ...fromRollout(row), state: "rolled_back" }, blockages: [] };
}

/** `DeploymentLifecycleService::parseName`: `namespace/task_queue@build_id` (or `@unversioned`), in its words. */
export function parseDeploymentName(raw: string): { namespace: string; taskQueue: string; buildId: string | null } {
  const name = raw.trim();
  const bad = (message: string) => new EngineError(400, "invalid_deployment_name", message, { error: message });
  if (name === "") throw bad("Deployment name must not be empty.");
  const at = name.lastIndexOf("@");
  if (at < 0)
    throw bad(
      'Deployment name must be of the form namespace/task_queue@build_id (use "@unversioned" for the unversioned cohort).',
    );
  const scope = name.slice(0, at);
  const build = name.slice(at + 1).trim();
  const slash = scope.indexOf("/");
  if (slash < 0) throw bad('Deployment name must include a namespace and task queue separated by "/".');
  const namespace = scope.slice(0, slash).trim();
  const taskQueue = scope.slice(slash + 1).trim();
  if (namespace === "" || taskQueue === "" || build === "")
    throw bad('Deployment name must include namespace, task queue, and build id (or "unversioned").');
  return { namespace, taskQueue, buildId: build === "unversioned" ? null : build };
}
