import type { Db } from "../store/db";
import { parsePayload } from "../engine/rows";
import type {
  ActivityRow,
  AttemptRow,
  CommandRow,
  FailureRow,
  InstanceRow,
  RunRow,
  TaskRow,
  TimerRow,
} from "../engine/rows";
import { EngineError } from "../engine/errors";
import { isTerminal } from "../engine/rows";
import type { RunSummary } from "../engine/summary";
import { canonicalDigests } from "./canonical-json";
import { canonicalDigestSteps } from "./chunked-json";
import {
  activityExport,
  commandExport,
  failureSnapshot,
  failuresExport,
  linkExport,
  payloadsView,
  signalExport,
  summaryView,
  taskExport,
  timerExport,
  workflowView,
} from "./export-sections";
import type {
  ActivityExport,
  CommandExport,
  FailureHistory,
  LinkedRun,
  LinkRecord,
  SignalRecord,
  TimerExport,
} from "./export-sections";
import { activityWait, timerWait } from "./export-waits";
import { isoMicros, parseObject, str } from "./format";
import type { Json } from "./format";
import { currentRun, findInstance, findRun } from "./runs";
import { readSnapshot } from "./snapshot";
import type { Steps } from "./time-slice";
import { runSliced, runSync } from "./time-slice";
import { codecSchemas, payloadManifestSteps } from "./payload-manifest";
import type { ManifestSource } from "./payload-manifest";
import { timelineEntry } from "./timeline";
import type { HistoryEventRecord, TimelineContext } from "./timeline";

export interface ExportSigning {
  key: string;
  keyId: string | null;
}

/** Which run to export: the route has resolved it, the snapshot reads it again. */
export interface RunRef {
  namespace: string;
  workflowId: string;
  runId: string;
}

/** Every row of a query, pausing after each (the iterator keeps the statement open meanwhile). */
function* rows<T>(db: Db, sql: string, ...params: unknown[]): Steps<T[]> {
  const out: T[] = [];
  for (const row of db.prepare(sql).iterate(...params)) {
    out.push(row as T);
    yield;
  }
  return out;
}

/** `items.map(f)`, pausing after each element. */
function* mapEach<T, U>(items: readonly T[], f: (item: T) => U): Steps<U[]> {
  const out: U[] = [];
  for (const item of items) {
    out.push(f(item));
    yield;
  }
  return out;
}

/** The run `ref` names, or 404 `run_not_found` when it is not a run of that instance in that namespace. */
function resolveRun(db: Db, ref: RunRef): { instance: InstanceRow; run: RunRow } {
  const instance = findInstance(db, ref.namespace, ref.workflowId);
  const run = findRun(db, ref.runId);
  if (!instance || !run || run.namespace !== instance.namespace || run.workflow_instance_id !== instance.id) {
    throw new EngineError(404, "run_not_found", "Workflow run not found.", {
      workflow_id: ref.workflowId,
      run_id: ref.runId,
    });
  }
  return { instance, run };
}

/** The run's own rows the timeline and the sections are built from, in the engine's export order. */
interface RunRows {
  failures: FailureRow[];
  activities: ActivityRow[];
  tasks: TaskRow[];
  commands: CommandRow[];
  timers: TimerRow[];
}

function* readRunRows(db: Db, runId: string): Steps<RunRows> {
  const failures = yield* rows<FailureRow>(
    db,
    "SELECT * FROM workflow_failures WHERE workflow_run_id = ? ORDER BY created_at, id",
    runId,
  );
  const activities = yield* rows<ActivityRow>(
    db,
    "SELECT * FROM activity_executions WHERE workflow_run_id = ? ORDER BY sequence",
    runId,
  );
  const tasks = yield* rows<TaskRow>(
    db,
    "SELECT * FROM workflow_tasks WHERE workflow_run_id = ? ORDER BY created_at, id",
    runId,
  );
  const commands = yield* rows<CommandRow>(
    db,
    "SELECT * FROM workflow_commands WHERE workflow_run_id = ? OR resolved_workflow_run_id = ? ORDER BY created_at, id",
    runId,
    runId,
  );
  const timers = yield* rows<TimerRow>(
    db,
    "SELECT * FROM workflow_run_timers WHERE workflow_run_id = ? ORDER BY sequence",
    runId,
  );
  return { failures, activities, tasks, commands, timers };
}

function timelineContextOf(runId: string, r: RunRows): TimelineContext {
  return {
    runId,
    commands: new Map(r.commands.map((c) => [c.id, c])),
    tasks: new Map(r.tasks.map((t) => [t.id, t])),
    activities: new Map(r.activities.map((a) => [a.id, a])),
    timers: new Map(r.timers.map((t) => [t.id, t])),
    failures: new Map(r.failures.map((f) => [f.id, failureSnapshot(f)])),
  };
}

/** One pass over the run's history: the `history_events` and `timeline` sections, and what other sections need of it. */
interface HistoryScan extends FailureHistory {
  historyEvents: Json[];
  timeline: Json[];
  eventTypesByActivity: Map<string, Set<string>>;
  timerEventTypes: Map<string, string[]>;
}

/** Records which failure, timer and activity an event names, for the failures, timers and activities sections. */
function noteEventReferences(scan: HistoryScan, e: HistoryEventRecord): void {
  const fid = str(e.payload.failure_id);
  if (fid && e.event_type !== "FailureHandled" && !scan.typedFailure.has(fid)) scan.typedFailure.set(fid, e.sequence);
  if (fid && e.event_type === "FailureHandled") scan.handled.add(fid);
  const tid = str(e.payload.timer_id);
  if (tid && e.event_type.startsWith("Timer"))
    scan.timerEventTypes.set(tid, [...new Set([...(scan.timerEventTypes.get(tid) ?? []), e.event_type])]);
  const aid = str(e.payload.activity_execution_id);
  if (aid && e.event_type.startsWith("Activity")) {
    const set = scan.eventTypesByActivity.get(aid) ?? new Set<string>();
    set.add(e.event_type);
    scan.eventTypesByActivity.set(aid, set);
  }
}

function historyEventExport(e: HistoryEventRecord): Json {
  return {
    id: e.id,
    sequence: e.sequence,
    type: e.event_type,
    workflow_task_id: e.workflow_task_id,
    workflow_command_id: e.workflow_command_id,
    recorded_at: isoMicros(e.recorded_at),
    payload: e.payload,
  };
}

const EVENT_SQL =
  "SELECT id, sequence, event_type, payload, workflow_task_id, workflow_command_id, recorded_at FROM workflow_history_events WHERE workflow_run_id = ? ORDER BY sequence";

function* scanHistory(db: Db, runId: string, context: TimelineContext): Steps<HistoryScan> {
  const scan: HistoryScan = {
    typedFailure: new Map(),
    handled: new Set(),
    eventTypesByActivity: new Map(),
    timerEventTypes: new Map(),
    historyEvents: [],
    timeline: [],
  };
  for (const row of db.prepare(EVENT_SQL).iterate(runId) as IterableIterator<
    Omit<HistoryEventRecord, "payload"> & { payload: string | null }
  >) {
    const e: HistoryEventRecord = { ...row, payload: parseObject(row.payload) ?? {} };
    noteEventReferences(scan, e);
    scan.historyEvents.push(historyEventExport(e));
    // Every key, nulls included, as `HistoryTimeline::mapEvent` writes it (HistoryTimeline.php@8dc90d64):
    // the same shape as the real server wins over the bundle's size (decision 0014).
    scan.timeline.push(timelineEntry(e, context));
    yield;
  }
  return scan;
}

/** The `activities` section: each execution with its attempts and the history event types that name it. */
function* activitiesSection(
  db: Db,
  runId: string,
  activityRows: ActivityRow[],
  eventTypesByActivity: Map<string, Set<string>>,
): Steps<ActivityExport[]> {
  const attemptsByActivity = new Map<string, AttemptRow[]>();
  for (const at of yield* rows<AttemptRow>(
    db,
    "SELECT * FROM activity_attempts WHERE workflow_run_id = ? ORDER BY activity_execution_id, attempt_number",
    runId,
  )) {
    const list = attemptsByActivity.get(at.activity_execution_id);
    if (list) list.push(at);
    else attemptsByActivity.set(at.activity_execution_id, [at]);
  }
  const activities: ActivityExport[] = [];
  for (const a of activityRows) {
    activities.push(activityExport(a, attemptsByActivity.get(a.id) ?? [], eventTypesByActivity.get(a.id)));
    yield;
  }
  return activities;
}

/** The `signals` section, each record joined to the exported command that delivered it. */
function* signalsSection(db: Db, runId: string, commands: CommandExport[]): Steps<Json[]> {
  const commandById = new Map(commands.map((c) => [c.id, c]));
  const signalRows = yield* rows<SignalRecord>(
    db,
    "SELECT * FROM workflow_signal_records WHERE workflow_run_id = ? ORDER BY received_at, id",
    runId,
  );
  return yield* mapEach(signalRows, (s) =>
    signalExport(s, s.workflow_command_id ? commandById.get(s.workflow_command_id) : undefined, runId),
  );
}

/** The `waits` section: one row per exported activity, then one per timer, each with its open task. */
function* waitsSection(db: Db, runId: string, activities: ActivityExport[], timers: TimerExport[]): Steps<Json[]> {
  const openTaskRows = yield* rows<TaskRow>(
    db,
    "SELECT * FROM workflow_tasks WHERE workflow_run_id = ? AND status IN ('ready', 'leased')",
    runId,
  );
  const openTasks = openTaskRows.map((t) => ({ task: t, payload: parsePayload(t.payload) }));
  const openTaskFor = (key: string, id: string): TaskRow | undefined =>
    openTasks.find((t) => t.payload[key] === id)?.task;
  const activityWaits = yield* mapEach(activities, (a) => activityWait(a, openTaskFor("activity_execution_id", a.id)));
  const timerWaits = yield* mapEach(timers, (t) => timerWait(t, openTaskFor("timer_id", t.id)));
  return [...activityWaits, ...timerWaits];
}

/** The `links` section: the run's parents and children, each with the run at its other end. */
function* linksSection(db: Db, runId: string): Steps<Json> {
  const linkRows = yield* rows<LinkRecord>(
    db,
    "SELECT * FROM workflow_links WHERE parent_workflow_run_id = ? OR child_workflow_run_id = ? ORDER BY created_at, id",
    runId,
    runId,
  );
  const linked = (otherRunId: string): LinkedRun | undefined =>
    db
      .prepare(
        "SELECT run_number, workflow_type, workflow_class, status, closed_reason FROM workflow_runs WHERE id = ?",
      )
      .get(otherRunId) as LinkedRun | undefined;
  const parents = yield* mapEach(
    linkRows.filter((l) => l.child_workflow_run_id === runId),
    (l) => linkExport(l, linked(l.parent_workflow_run_id)),
  );
  const children = yield* mapEach(
    linkRows.filter((l) => l.parent_workflow_run_id === runId),
    (l) => linkExport(l, linked(l.child_workflow_run_id)),
  );
  return { projection_source: "workflow_links", parents, children };
}

/** The bundle's identity: schema, export time, and the key that names this state of the run. */
function bundleHeader(run: RunRow, now: number): Json {
  const lastProgress = run.last_progress_at ?? run.created_at;
  return {
    schema: "durable-workflow.v2.history-export",
    schema_version: 1,
    exported_at: isoMicros(now),
    dedupe_key: `${run.id}:${run.last_history_sequence}:${isoMicros(lastProgress)}`,
    history_complete: isTerminal(run.status),
  };
}

/** This server rebuilds every selected-run projection from history on each read. */
function selectedRunSources(): Json {
  return {
    waits_projection_source: "workflow_run_waits_rebuilt",
    timeline_projection_source: "workflow_run_timeline_entries_rebuilt",
    timers_projection_source: "workflow_run_timer_entries_rebuilt",
    timers_projection_rebuild_reasons: [],
    lineage_projection_source: "workflow_run_lineage_entries_rebuilt",
  };
}

/**
 * `HistoryExport::forRun`: the full run bundle (history, timeline, activities with attempts,
 * failures, tasks, commands, signals, timers, waits, links), everything but `integrity`. All of
 * it is read from `db`; `exportRunSliced` hands it a snapshot, so the reads agree with each other.
 */
function* buildBundle(db: Db, ref: RunRef, now: number): Steps<Json> {
  const { instance, run } = resolveRun(db, ref);
  // The stored summary, as `HistoryExport::forRun` reads `$run->summary` (HistoryExport.php@8dc90d6).
  const summary = db.prepare("SELECT * FROM workflow_run_summaries WHERE id = ?").get(run.id) as RunSummary | undefined;
  const current = currentRun(db, instance);
  yield;
  const runRows = yield* readRunRows(db, run.id);
  const history = yield* scanHistory(db, run.id, timelineContextOf(run.id, runRows));
  const failures = failuresExport(runRows.failures, history);
  yield;
  const activities = yield* activitiesSection(db, run.id, runRows.activities, history.eventTypesByActivity);
  const tasks = yield* mapEach(runRows.tasks, taskExport);
  const commands = yield* mapEach(runRows.commands, commandExport);
  const signals = yield* signalsSection(db, run.id, commands);
  const timers = yield* mapEach(runRows.timers, (t) => timerExport(t, history.timerEventTypes.get(t.id) ?? []));
  const waits = yield* waitsSection(db, run.id, activities, timers);
  const links = yield* linksSection(db, run.id);
  const bundle: Json = {
    ...bundleHeader(run, now),
    workflow: workflowView(run, current?.id ?? null),
    payloads: payloadsView(run),
    summary: summary ? summaryView(summary, run) : null,
    selected_run: selectedRunSources(),
    history_events: history.historyEvents,
    waits,
    timeline: history.timeline,
    linked_intakes_scope: "selected_run",
    linked_intakes: [],
    commands,
    signals,
    updates: [],
    tasks,
    activities,
    timers,
    failures,
    links,
    redaction: { applied: false, policy: null, paths: [] },
  };
  // After redaction, as `HistoryExport::forRun` does: the schemas and manifest describe the bundle's own sections.
  const sections = bundle as unknown as ManifestSource & { tasks: Json[] };
  bundle.codec_schemas = codecSchemas(sections);
  bundle.payload_manifest = yield* payloadManifestSteps(sections);
  return bundle;
}

function integrityOf(digests: { sha256: string; hmacSha256: string | null }, signing: ExportSigning | null): Json {
  return {
    canonicalization: "json-recursive-ksort-v1",
    checksum_algorithm: "sha256",
    checksum: digests.sha256,
    signature_algorithm: signing ? "hmac-sha256" : null,
    signature: digests.hmacSha256,
    key_id: signing?.keyId ?? null,
  };
}

/**
 * The bundle with its integrity checksum over the canonical JSON of everything but `integrity`,
 * built in one go on `db`'s connection. The server uses `exportRunSliced`; this is for in-memory
 * databases and for tests that want the bundle as one synchronous read sees it.
 */
export function exportRun(db: Db, ref: RunRef, now: number, signing: ExportSigning | null): Json {
  const bundle = runSync(buildBundle(db, ref, now));
  bundle.integrity = integrityOf(canonicalDigests(bundle, signing?.key ?? null), signing);
  return bundle;
}

/**
 * The same bundle, read from one snapshot on a connection of its own and built, hashed (and later
 * serialised, `jsonStream`) in slices, so the event loop keeps serving worker polls and reads while
 * a 50,000-event run is exported. Events committed meanwhile are not in the bundle.
 */
export async function exportRunSliced(
  db: Db,
  ref: RunRef,
  now: number,
  signing: ExportSigning | null,
  signal?: AbortSignal,
): Promise<Json> {
  const bundle = await readSnapshot(db, (snapshot) => buildBundle(snapshot, ref, now), signal);
  const digests = await runSliced(canonicalDigestSteps(bundle, signing?.key ?? null), signal);
  bundle.integrity = integrityOf(digests, signing);
  return bundle;
}
