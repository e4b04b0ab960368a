import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Clock } from "../clock";
import { createEngine } from "../engine";
import type { Engine } from "../engine";
import { buildApp } from "../http/app";
import { openDb } from "../store/db";
import type { Db } from "../store/db";
import { decodePayload } from "../codec/codec";
import type { PayloadValue } from "../codec/codec";

/**
 * Starts the real embedded server (SQLite file in a temp dir, Fastify on an ephemeral loopback
 * port) for SDK, demo and benchmark runs. Time comes from the given clock, so tests drive timers,
 * backoffs and leases with a FakeClock and `engine.sweep()` instead of sleeping.
 */

export const TEST_WORKER_TOKEN = "test-worker-token";
export const TEST_OPERATOR_TOKEN = "test-operator-token";

export interface TestServer {
  baseUrl: string;
  db: Db;
  engine: Engine;
  clock: Clock;
  close(): Promise<void>;
}

export async function startTestServer(clock: Clock, opts: { pollTimeoutMs?: number } = {}): Promise<TestServer> {
  const dir = mkdtempSync(join(tmpdir(), "breakwater-sdk-"));
  const db = openDb(join(dir, "server.db"), clock);
  const engine = createEngine({ db, clock });
  const app = buildApp({
    db,
    clock,
    engine,
    auth: {
      driver: "token",
      tokens: { worker: TEST_WORKER_TOKEN, operator: TEST_OPERATOR_TOKEN, admin: null, legacy: null },
      backwardCompatible: true,
    },
    pollTimeoutMs: opts.pollTimeoutMs ?? 2_000,
  });
  const address = await app.listen({ port: 0, host: "127.0.0.1" });
  return {
    baseUrl: address,
    db,
    engine,
    clock,
    async close() {
      await app.close();
      db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface RunView {
  id: string;
  status: string;
  closed_reason: string | null;
  run_number: number;
  output: PayloadValue;
}

/** The current (latest) run of a workflow instance, with its output decoded. */
export function currentRun(db: Db, workflowId: string): RunView | null {
  const row = db
    .prepare(
      "SELECT id, status, closed_reason, run_number, output, output_payload_codec FROM workflow_runs WHERE workflow_instance_id = ? ORDER BY run_number DESC LIMIT 1",
    )
    .get(workflowId) as
    | {
        id: string;
        status: string;
        closed_reason: string | null;
        run_number: number;
        output: string | null;
        output_payload_codec: string | null;
      }
    | undefined;
  if (!row) return null;
  return {
    id: row.id,
    status: row.status,
    closed_reason: row.closed_reason,
    run_number: row.run_number,
    output: row.output ? decodePayload(row.output, row.output_payload_codec) : null,
  };
}

export function historyOf(db: Db, runId: string): { event_type: string; payload: Record<string, unknown> }[] {
  return (
    db
      .prepare("SELECT event_type, payload FROM workflow_history_events WHERE workflow_run_id = ? ORDER BY sequence")
      .all(runId) as { event_type: string; payload: string | null }[]
  ).map((r) => ({
    event_type: r.event_type,
    payload: r.payload ? (JSON.parse(r.payload) as Record<string, unknown>) : {},
  }));
}

/** Polls (real time) until `check` returns a value, for progress made by workers over HTTP. */
export async function eventually<T>(
  check: () => T | null | undefined | false,
  what: string,
  timeoutMs = 10_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = check();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
