import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { isoMicros, systemClock } from "../clock";
import { newId } from "../ids";
import { openDb } from "../store/db";
import type { Db } from "../store/db";
import { encodeBlob } from "../codec/codec";
import { at } from "../invariant";

/**
 * Bulk-loads synthetic history into the embedded server's SQLite file for benchmarks: instances,
 * runs, run summaries (as the projector would write them for these simple shapes), a few history
 * events per run and a failure row for failed runs. One transaction per 10,000 runs.
 *
 *   node --import tsx server/demo/seed.ts --runs 1000000 --data path.db
 */

export interface SeedOptions {
  runs: number;
  namespace?: string;
  /** Newest start time; runs spread over the 30 days before it. */
  now?: number;
  batchSize?: number;
  onProgress?: (done: number) => void;
}

const TYPES = [
  "OrderWorkflow",
  "RefundApprovalWorkflow",
  "InventorySyncWorkflow",
  "ShipmentBatchWorkflow",
  "ParcelWorkflow",
  "FulfillmentWorkflow",
];
const QUEUES = ["default", "default", "default", "payments"];
const DAY_MS = 86_400_000;

type Shape = "completed" | "failed" | "timed_out" | "cancelled" | "terminated" | "waiting" | "stuck";

/** Deterministic mix: mostly completed, a tail of failures and open runs, a sliver needing repair. */
function shapeOf(i: number): Shape {
  const r = (i * 7919) % 1000;
  if (r < 700) return "completed";
  if (r < 800) return "failed";
  if (r < 830) return "timed_out";
  if (r < 850) return "cancelled";
  if (r < 860) return "terminated";
  if (r < 995) return "waiting";
  return "stuck";
}

interface Event {
  type: string;
  payload: Record<string, unknown>;
}

/** One seeded run's facts: all but its ids follow from its index, so a seed is repeatable. */
interface SeedRun {
  i: number;
  type: string;
  shape: Shape;
  startedAt: number;
  duration: number;
  closed: boolean;
  closedAt: number | null;
  runId: string;
  instanceId: string;
  businessKey: string;
  queue: string;
  status: string;
  closedReason: string | null;
  execId: string;
  failureId: string | null;
  waitId: string;
}

const STATUS: Record<Shape, string> = {
  completed: "completed",
  failed: "failed",
  timed_out: "failed",
  cancelled: "cancelled",
  terminated: "terminated",
  waiting: "waiting",
  stuck: "waiting",
};

function seedRunOf(i: number, now: number, tag: string): SeedRun {
  const type = at(TYPES, i % TYPES.length);
  const shape = shapeOf(i);
  const startedAt = now - Math.floor(((i * 2654435761) % 1_000_000_007) % (30 * DAY_MS));
  const duration = 200 + ((i * 31) % 120_000);
  const closed = shape !== "waiting" && shape !== "stuck";
  const closedAt = closed ? startedAt + duration : null;
  const runId = newId(startedAt);
  const execId = newId(startedAt);
  const failed = shape === "failed" || shape === "timed_out" || shape === "cancelled" || shape === "terminated";
  const failureId = failed ? newId(closedAt ?? startedAt) : null;
  return {
    i,
    type,
    shape,
    startedAt,
    duration,
    closed,
    closedAt,
    runId,
    instanceId: `seed-${tag}-${type.replace("Workflow", "").toLowerCase()}-${i}`,
    businessKey: `customer-${i % 5000}`,
    queue: at(QUEUES, i % QUEUES.length),
    status: STATUS[shape],
    // A closed run's reason is its shape (timed_out included); an open one has none.
    closedReason: closed ? shape : null,
    execId,
    failureId,
    waitId: newId(startedAt),
  };
}

/** When the run's k-th event was recorded: spread over its duration (50 ms apart while open). */
function stepTime(r: SeedRun, k: number): number {
  return Math.min(r.startedAt + k * Math.max(1, Math.floor(r.duration / 4)), r.closedAt ?? r.startedAt + k * 50);
}

/** `workflow_failures` columns between the run id and the timestamps. */
type FailureColumns = [string, string, string, string, number, string, string | null, string];

/** A failed charge: a declined card fails at once, a gateway outage after three attempts. */
function activityFailure(r: SeedRun): { events: Event[]; failure: FailureColumns } {
  const { i, execId, failureId, runId } = r;
  const nonRetryable = i % 3 === 0;
  const exceptionType = nonRetryable ? "PaymentDeclined" : "GatewayUnavailable";
  const message = nonRetryable ? "Card was declined by the issuer." : "Payment gateway unavailable (HTTP 503).";
  const events: Event[] = [
    {
      type: "ActivityScheduled",
      payload: { activity_execution_id: execId, activity_type: "ChargeCard", sequence: 1 },
    },
    {
      type: "ActivityFailed",
      payload: {
        activity_execution_id: execId,
        activity_type: "ChargeCard",
        sequence: 1,
        attempt_number: nonRetryable ? 1 : 3,
        failure_id: failureId,
        failure_category: "activity",
        non_retryable: nonRetryable,
        exception_type: exceptionType,
        message,
      },
    },
    {
      type: "WorkflowFailed",
      payload: {
        failure_id: failureId,
        source_kind: "workflow_run",
        source_id: runId,
        failure_category: "activity",
        non_retryable: nonRetryable,
        exception_type: exceptionType,
        message,
      },
    },
  ];
  const failure: FailureColumns = [
    "activity_execution",
    execId,
    "activity",
    "activity",
    nonRetryable ? 1 : 0,
    exceptionType,
    exceptionType,
    message,
  ];
  return { events, failure };
}

/** The run's history, and the failure row its ending writes (null when it has none). */
function historyOf(r: SeedRun, output: string): { events: Event[]; failure: FailureColumns | null } {
  const { type, shape, execId, failureId, runId, closedAt, waitId } = r;
  const events: Event[] = [
    {
      type: "WorkflowStarted",
      payload: {
        workflow_type: type,
        workflow_class: type,
        workflow_instance_id: r.instanceId,
        workflow_run_id: runId,
        business_key: r.businessKey,
      },
    },
  ];
  let failure: FailureColumns | null = null;
  if (shape === "completed") {
    events.push(
      {
        type: "ActivityScheduled",
        payload: { activity_execution_id: execId, activity_type: "ChargeCard", sequence: 1 },
      },
      {
        type: "ActivityCompleted",
        payload: {
          activity_execution_id: execId,
          activity_type: "ChargeCard",
          sequence: 1,
          attempt_number: 1,
          result: output,
          payload_codec: "avro",
        },
      },
      { type: "WorkflowCompleted", payload: { output, payload_codec: "avro" } },
    );
  } else if (shape === "failed") {
    const ended = activityFailure(r);
    events.push(...ended.events);
    failure = ended.failure;
  } else if (shape === "timed_out") {
    const message = `Workflow execution deadline expired at ${isoMicros(closedAt)}.`;
    events.push({
      type: "WorkflowTimedOut",
      payload: { failure_id: failureId, timeout_kind: "execution_timeout", failure_category: "timeout", message },
    });
    failure = [
      "workflow_run",
      runId,
      "timeout",
      "timeout",
      0,
      "Workflow\\V2\\Exceptions\\WorkflowTimeoutException",
      null,
      message,
    ];
  } else if (shape === "cancelled" || shape === "terminated") {
    const message = shape === "cancelled" ? "Workflow cancelled." : "Workflow terminated.";
    events.push({
      type: shape === "cancelled" ? "WorkflowCancelled" : "WorkflowTerminated",
      payload: { failure_id: failureId, failure_category: shape, closed_reason: shape, message },
    });
    failure = [
      "workflow_run",
      runId,
      shape,
      shape,
      0,
      shape === "cancelled"
        ? "Workflow\\V2\\Exceptions\\WorkflowCancelledException"
        : "Workflow\\V2\\Exceptions\\WorkflowTerminatedException",
      null,
      message,
    ];
  } else if (shape === "waiting") {
    events.push({
      type: "SignalWaitOpened",
      payload: { signal_name: "approve", signal_wait_id: waitId, sequence: 1, timeout_seconds: null },
    });
  }
  return { events, failure };
}

/** The summary row the projector would write for this simple shape. */
function summaryOf(r: SeedRun, namespace: string, history: { events: number; size: number; lastProgress: number }) {
  const { closed, shape, status, closedReason, startedAt, closedAt, runId, waitId } = r;
  const waiting = shape === "waiting";
  const liveness: [string, string] = closed
    ? ["closed", `Run closed as ${closedReason ?? status}.`]
    : waiting
      ? ["waiting_for_signal", "Waiting for signal approve."]
      : ["repair_needed", "Run is non-terminal but has no durable next-resume source."];
  return {
    id: runId,
    instance: r.instanceId,
    namespace,
    type: r.type,
    business_key: r.businessKey,
    status,
    bucket: closed ? (status === "completed" ? "completed" : "failed") : "running",
    closed_reason: closedReason,
    queue: r.queue,
    started_at: startedAt,
    sort_key: `${String(startedAt).padStart(15, "0")}:${runId}`,
    closed_at: closedAt,
    duration_ms: closedAt !== null ? closedAt - startedAt : null,
    wait_kind: waiting ? "signal" : null,
    wait_reason: waiting ? "Waiting for signal approve" : null,
    wait_started_at: waiting ? stepTime(r, 1) : null,
    open_wait_id: waiting ? waitId : null,
    resume_kind: waiting ? "external_input" : null,
    resume_id: waiting ? waitId : null,
    liveness: liveness[0],
    liveness_reason: liveness[1],
    repair_blocked: closed ? "run_closed" : waiting ? "repair_not_needed" : null,
    task_problem: shape === "stuck" ? 1 : 0,
    exceptions: r.failureId ? 1 : 0,
    event_count: history.events,
    size_bytes: history.size,
    created_at: startedAt,
    updated_at: closedAt ?? history.lastProgress,
  };
}

function seedStatements(db: Db) {
  const insInstance = db.prepare(
    `INSERT INTO workflow_instances (id, namespace, workflow_class, workflow_type, business_key, current_run_id, run_count, started_at, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, 1, ?, ?, ?)`,
  );
  const insRun = db.prepare(
    `INSERT INTO workflow_runs (id, workflow_instance_id, namespace, run_number, workflow_class, workflow_type, business_key, status, closed_reason,
       payload_codec, arguments, output, output_payload_codec, queue, last_history_sequence, started_at, closed_at, last_progress_at, created_at, updated_at)
     VALUES (?, ?, ?, 1, ?, ?, ?, ?, ?, 'avro', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const insEvent = db.prepare(
    "INSERT INTO workflow_history_events (id, workflow_run_id, sequence, event_type, payload, recorded_at, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
  );
  const insFailure = db.prepare(
    `INSERT INTO workflow_failures (id, workflow_run_id, source_kind, source_id, propagation_kind, failure_category, non_retryable, exception_class, exception_type, message, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const insSummary = db.prepare(
    `INSERT INTO workflow_run_summaries (id, workflow_instance_id, namespace, run_number, is_current_run, class, workflow_type, business_key, status, status_bucket,
       closed_reason, queue, started_at, sort_timestamp, sort_key, closed_at, duration_ms, wait_kind, wait_reason, wait_started_at, open_wait_id,
       resume_source_kind, resume_source_id, liveness_state, liveness_reason, repair_blocked_reason, task_problem, exception_count, history_event_count,
       history_size_bytes, created_at, updated_at)
     VALUES (@id, @instance, @namespace, 1, 1, @type, @type, @business_key, @status, @bucket, @closed_reason, @queue, @started_at, @started_at, @sort_key,
       @closed_at, @duration_ms, @wait_kind, @wait_reason, @wait_started_at, @open_wait_id, @resume_kind, @resume_id, @liveness, @liveness_reason,
       @repair_blocked, @task_problem, @exceptions, @event_count, @size_bytes, @created_at, @updated_at)`,
  );
  return { insInstance, insRun, insEvent, insFailure, insSummary };
}

export function seedRuns(db: Db, opts: SeedOptions): { runs: number; events: number } {
  const namespace = opts.namespace ?? "default";
  const now = opts.now ?? Date.now();
  const batchSize = opts.batchSize ?? 10_000;
  const tag = now.toString(36);
  const input = encodeBlob([{ seeded: true }]);
  const output = encodeBlob({ ok: true });
  const { insInstance, insRun, insEvent, insFailure, insSummary } = seedStatements(db);

  let events = 0;
  const seedOne = (i: number): void => {
    const r = seedRunOf(i, now, tag);
    const { runId, instanceId, type, startedAt, closedAt } = r;
    const { events: list, failure } = historyOf(r, output);
    if (failure) insFailure.run(r.failureId, runId, ...failure, closedAt, closedAt);
    let size = 0;
    list.forEach((e, k) => {
      const json = JSON.stringify(e.payload);
      size += json.length + e.type.length;
      const t = stepTime(r, k);
      insEvent.run(newId(t), runId, k + 1, e.type, json, t, t, t);
    });
    events += list.length;
    const lastProgress = stepTime(r, list.length - 1);
    insInstance.run(
      instanceId,
      namespace,
      type,
      type,
      r.businessKey,
      runId,
      startedAt,
      startedAt,
      closedAt ?? lastProgress,
    );
    insRun.run(
      runId,
      instanceId,
      namespace,
      type,
      type,
      r.businessKey,
      r.status,
      r.closedReason,
      input,
      r.shape === "completed" ? output : null,
      r.shape === "completed" ? "avro" : null,
      r.queue,
      list.length,
      startedAt,
      closedAt,
      lastProgress,
      startedAt,
      closedAt ?? lastProgress,
    );
    insSummary.run(summaryOf(r, namespace, { events: list.length, size, lastProgress }));
  };

  for (let from = 0; from < opts.runs; from += batchSize) {
    const to = Math.min(opts.runs, from + batchSize);
    db.transaction(() => {
      for (let i = from; i < to; i++) seedOne(i);
    })();
    opts.onProgress?.(to);
  }
  return { runs: opts.runs, events };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      runs: { type: "string", default: "10000" },
      data: { type: "string" },
      namespace: { type: "string", default: "default" },
    },
  });
  const runs = Number(values.runs);
  if (!Number.isInteger(runs) || runs < 1 || runs > 1_000_000)
    throw new Error("--runs must be an integer between 1 and 1000000");
  if (!values.data) throw new Error("--data path.db is required");
  const db = openDb(values.data, systemClock);
  // Bulk loading trades per-commit durability for speed; a crashed seed is simply rerun.
  db.pragma("synchronous = NORMAL");
  db.pragma("cache_size = -262144");
  const started = Date.now();
  const result = seedRuns(db, {
    runs,
    namespace: values.namespace,
    onProgress: (done) => {
      if (done % 100_000 === 0 || done === runs)
        process.stdout.write(`seeded ${done} runs (${((Date.now() - started) / 1000).toFixed(1)} s)\n`);
    },
  });
  db.pragma("wal_checkpoint(TRUNCATE)");
  db.close();
  const wall = (Date.now() - started) / 1000;
  process.stdout.write(
    `seed: ${result.runs} runs, ${result.events} history events in ${wall.toFixed(1)} s (${Math.round(result.runs / wall)} runs/s) into ${values.data}\n`,
  );
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((e: unknown) => {
    process.stderr.write(`${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(1);
  });
}
