import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FastifyInstance } from "fastify";
import { FakeClock } from "../clock";
import type { Clock } from "../clock";
import type { Engine } from "../engine";
import { createEngine } from "../engine";
import type { Db } from "../store/db";
import { openDb } from "../store/db";
import type { AuthConfig } from "./auth";
import { authConfigFromEnv } from "./auth";
import { buildApp } from "./app";
import type { HostPolicy } from "./hosts";

/**
 * Test scaffolding shared by the engine and worker-plane suites: a real SQLite file in a temp dir,
 * a FakeClock, and the Fastify app listening on 127.0.0.1:0. Not a test file itself.
 */
export interface Harness {
  url: string;
  engine: Engine;
  clock: FakeClock;
  db: Db;
  app: FastifyInstance;
  /** Moves fake time forward and runs the sweep at the new time. */
  advance(seconds: number): void;
  close(): Promise<void>;
}

export const NO_AUTH: AuthConfig = {
  driver: "none",
  tokens: { worker: null, operator: null, admin: null, legacy: null },
  backwardCompatible: true,
};

/** The embedded server on a real SQLite file in a temp dir, listening on 127.0.0.1:0. */
export interface EmbeddedServer {
  url: string;
  engine: Engine;
  db: Db;
  app: FastifyInstance;
  close(): Promise<void>;
}

export interface EmbeddedServerOptions {
  clock: Clock;
  auth: AuthConfig;
  pollTimeoutMs?: number;
  historyPollTimeoutMs?: number;
  /** DW_EMBEDDED_ALLOWED_HOSTS as parsed; default loopback only. */
  hosts?: HostPolicy;
  /** Writes into the database before the app opens it (seeded histories). */
  seed?: (db: Db) => void;
  /** Sees the app before it listens (Fastify takes hooks only then). */
  onApp?: (app: FastifyInstance) => void;
}

export async function startEmbeddedServer(opts: EmbeddedServerOptions): Promise<EmbeddedServer> {
  const dir = mkdtempSync(join(tmpdir(), "bw-engine-"));
  const db = openDb(join(dir, "test.db"), opts.clock);
  opts.seed?.(db);
  const engine = createEngine({ db, clock: opts.clock });
  const app = buildApp({
    db,
    clock: opts.clock,
    engine,
    auth: opts.auth,
    pollTimeoutMs: opts.pollTimeoutMs,
    historyPollTimeoutMs: opts.historyPollTimeoutMs,
    hosts: opts.hosts,
  });
  opts.onApp?.(app);
  const url = await app.listen({ host: "127.0.0.1", port: 0 });
  return {
    url,
    engine,
    db,
    app,
    async close() {
      await app.close();
      db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Token auth as the server reads it from its environment (`DW_ADMIN_TOKEN`, `DW_OPERATOR_TOKEN`, ...). */
export function tokenAuth(tokens: Record<string, string>): AuthConfig {
  return authConfigFromEnv({ ...process.env, ...tokens, DW_AUTH_DRIVER: "token" });
}

export async function startHarness(
  opts: { auth?: AuthConfig; pollTimeoutMs?: number; historyPollTimeoutMs?: number } = {},
): Promise<Harness> {
  const clock = new FakeClock();
  const server = await startEmbeddedServer({
    clock,
    auth: opts.auth ?? NO_AUTH,
    pollTimeoutMs: opts.pollTimeoutMs ?? 150,
    historyPollTimeoutMs: opts.historyPollTimeoutMs,
  });
  return {
    ...server,
    clock,
    advance(seconds) {
      clock.advance(seconds * 1000);
      server.engine.sweep();
    },
  };
}

/** An opaque payload envelope; the engine never decodes blobs, so any base64 text stands in for Avro. */
export function blob(value: unknown): { codec: string; blob: string } {
  return { codec: "avro", blob: Buffer.from(JSON.stringify(value)).toString("base64") };
}

export interface HttpResult {
  status: number;
  headers: Headers;
  body: Record<string, unknown>;
}

export interface WorkflowTaskWire {
  task_id: string;
  run_id: string;
  workflow_id: string;
  workflow_task_attempt: number;
  lease_owner: string;
  history_events: { sequence: number; event_type: string; payload: Record<string, unknown> }[];
  [key: string]: unknown;
}

export interface ActivityTaskWire {
  task_id: string;
  run_id: string;
  activity_execution_id: string;
  activity_attempt_id: string;
  attempt_number: number;
  activity_type: string;
  lease_owner: string;
  [key: string]: unknown;
}

/** A scripted worker speaking the HTTP worker protocol; tests decide every command it sends. */
export class ScriptedWorker {
  constructor(
    readonly url: string,
    readonly workerId: string = "worker-1",
    readonly queue: string = "default",
    readonly token: string | null = null,
  ) {}

  async post(path: string, body: unknown, headers: Record<string, string> = {}): Promise<HttpResult> {
    const res = await fetch(`${this.url}/api/worker${path}`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-durable-workflow-protocol-version": "1.19",
        ...(this.token ? { authorization: `Bearer ${this.token}` } : {}),
        ...headers,
      },
      body: JSON.stringify(body),
    });
    return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, unknown> };
  }

  async register(): Promise<HttpResult> {
    return this.post("/register", { worker_id: this.workerId, task_queue: this.queue, runtime: "typescript" });
  }

  async pollWorkflow(): Promise<WorkflowTaskWire | null> {
    const r = await this.post("/workflow-tasks/poll", { worker_id: this.workerId, task_queue: this.queue });
    if (r.status !== 200) throw new Error(`workflow poll ${r.status}: ${JSON.stringify(r.body)}`);
    return (r.body.task as WorkflowTaskWire | null) ?? null;
  }

  async mustPollWorkflow(): Promise<WorkflowTaskWire> {
    const t = await this.pollWorkflow();
    if (!t) throw new Error("expected a workflow task");
    return t;
  }

  async completeWorkflow(task: WorkflowTaskWire, commands: Record<string, unknown>[]): Promise<HttpResult> {
    return this.post(`/workflow-tasks/${task.task_id}/complete`, {
      lease_owner: task.lease_owner,
      workflow_task_attempt: task.workflow_task_attempt,
      commands,
    });
  }

  async pollActivity(): Promise<ActivityTaskWire | null> {
    const r = await this.post("/activity-tasks/poll", { worker_id: this.workerId, task_queue: this.queue });
    if (r.status !== 200) throw new Error(`activity poll ${r.status}: ${JSON.stringify(r.body)}`);
    return (r.body.task as ActivityTaskWire | null) ?? null;
  }

  async mustPollActivity(): Promise<ActivityTaskWire> {
    const t = await this.pollActivity();
    if (!t) throw new Error("expected an activity task");
    return t;
  }

  async completeActivity(task: ActivityTaskWire, result: unknown = blob("ok")): Promise<HttpResult> {
    return this.post(`/activity-tasks/${task.task_id}/complete`, {
      activity_attempt_id: task.activity_attempt_id,
      lease_owner: task.lease_owner,
      result,
    });
  }

  async failActivity(task: ActivityTaskWire, failure: Record<string, unknown>): Promise<HttpResult> {
    return this.post(`/activity-tasks/${task.task_id}/fail`, {
      activity_attempt_id: task.activity_attempt_id,
      lease_owner: task.lease_owner,
      failure,
    });
  }

  async heartbeatActivity(task: ActivityTaskWire, extra: Record<string, unknown> = {}): Promise<HttpResult> {
    return this.post(`/activity-tasks/${task.task_id}/heartbeat`, {
      activity_attempt_id: task.activity_attempt_id,
      lease_owner: task.lease_owner,
      ...extra,
    });
  }
}

/** A fresh harness with one registered ScriptedWorker: the starting point of most engine suites. */
export async function startWorkerHarness(
  opts: { workerId?: string; start?: () => Promise<Harness> } = {},
): Promise<{ h: Harness; worker: ScriptedWorker }> {
  const h = await (opts.start ?? startHarness)();
  const worker = new ScriptedWorker(h.url, opts.workerId);
  try {
    await worker.register();
  } catch (err) {
    await h.close();
    throw err;
  }
  return { h, worker };
}

export interface StoredEvent {
  sequence: number;
  event_type: string;
  payload: Record<string, unknown>;
}

export function historyOf(db: Db, runId: string): StoredEvent[] {
  return (
    db
      .prepare(
        "SELECT sequence, event_type, payload FROM workflow_history_events WHERE workflow_run_id = ? ORDER BY sequence",
      )
      .all(runId) as { sequence: number; event_type: string; payload: string }[]
  ).map((r) => ({
    sequence: r.sequence,
    event_type: r.event_type,
    payload: JSON.parse(r.payload) as Record<string, unknown>,
  }));
}

export function typesOf(db: Db, runId: string): string[] {
  return historyOf(db, runId).map((e) => e.event_type);
}

export function runRow(
  db: Db,
  runId: string,
): { status: string; closed_reason: string | null; workflow_instance_id: string; run_number: number } {
  return db
    .prepare("SELECT status, closed_reason, workflow_instance_id, run_number FROM workflow_runs WHERE id = ?")
    .get(runId) as { status: string; closed_reason: string | null; workflow_instance_id: string; run_number: number };
}

export function failuresOf(
  db: Db,
  runId: string,
): {
  source_kind: string;
  propagation_kind: string;
  failure_category: string;
  non_retryable: number;
  exception_class: string;
  message: string;
}[] {
  return db.prepare("SELECT * FROM workflow_failures WHERE workflow_run_id = ? ORDER BY created_at, id").all(runId) as {
    source_kind: string;
    propagation_kind: string;
    failure_category: string;
    non_retryable: number;
    exception_class: string;
    message: string;
  }[];
}
