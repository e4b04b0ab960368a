import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { closeSync, openSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import bcrypt from "bcryptjs";
import { test } from "@playwright/test";
import type { Page } from "@playwright/test";
import { systemClock } from "../server/clock";
import { loseTransport, waitForReadyTask } from "../server/demo/faults";
import { defineActivity } from "../server/sdk/activity";
import { Worker } from "../server/sdk/worker";
import { defineWorkflow } from "../server/sdk/workflow";
import { openDb } from "../server/store/db";
import type { Db } from "../server/store/db";

/**
 * Data for the operator-action specs, made the way production makes it: runs started over the
 * control plane, worked by a TypeScript SDK worker over the worker protocol, and transport lost by
 * deleting the ready task rows in the server's SQLite file (server/demo/faults `loseTransport`). The
 * embedded e2e server runs with DW_AUTO_REPAIR=0, so a stuck run stays stuck until repaired.
 */

export const OPS_QUEUE = "e2e-ops";

const restockPage = defineActivity("RestockPage", async (_ctx, sku) => ({ sku, restocked: true }));

/** Sleeps, then one activity: losing the timer task leaves it `repair_needed`. */
const restock = defineWorkflow("OpsRestockWorkflow", function* (ctx, sku) {
  yield ctx.sleep(4);
  return yield ctx.activity("RestockPage", [sku]);
});

/** Stays open for ten minutes: a target for cancel / terminate. */
const longWait = defineWorkflow("OpsLongWaitWorkflow", function* (ctx) {
  yield ctx.sleep(600);
  return { waited: true };
});

function env(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: the operator specs need the embedded e2e server`);
  return value;
}

export function dwBaseUrl(): string {
  return `http://${env("E2E_DW_HOST")}`;
}

const headers = () => ({
  Authorization: `Bearer ${env("E2E_TOKEN")}`,
  "Content-Type": "application/json",
  Accept: "application/json",
  "X-Namespace": "default",
  "X-Durable-Workflow-Control-Plane-Version": "2",
});

export async function dwGet<T = Record<string, unknown>>(path: string): Promise<T> {
  const response = await fetch(`${dwBaseUrl()}/api${path}`, { headers: headers() });
  if (!response.ok) throw new Error(`GET ${path}: HTTP ${response.status}`);
  return (await response.json()) as T;
}

export async function dwPost(path: string, body: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${dwBaseUrl()}/api${path}`, {
    method: "POST",
    headers: headers(),
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

export async function startRun(workflowType: string, workflowId: string, input: unknown[]): Promise<string> {
  const { status, body } = await dwPost("/workflows", {
    workflow_type: workflowType,
    workflow_id: workflowId,
    task_queue: OPS_QUEUE,
    input,
    duplicate_policy: "fail",
  });
  if (status >= 300 || typeof body.run_id !== "string")
    throw new Error(`start ${workflowId}: HTTP ${status} ${JSON.stringify(body)}`);
  return body.run_id;
}

export function startOpsWorker(): Worker {
  const worker = new Worker({
    baseUrl: dwBaseUrl(),
    token: env("E2E_WORKER_TOKEN"),
    namespace: "default",
    taskQueue: OPS_QUEUE,
    workerId: `e2e-ops-${process.pid}`,
    workflows: [restock, longWait],
    activities: [restockPage],
  });
  return worker;
}

let db: Db | null = null;

function serverDb(): Db {
  db ??= openDb(join(env("E2E_DATA_DIR"), "dw.sqlite"), systemClock);
  return db;
}

/**
 * The spec file's ops worker: started before its tests, shut down after them (with the spec's
 * handle on the server's SQLite file closed).
 */
export function withOpsWorker(): void {
  let worker: Worker | undefined;

  test.beforeAll(async () => {
    worker = startOpsWorker();
    await worker.start();
  });

  test.afterAll(async () => {
    await worker?.shutdown({ abortActivities: true });
    closeServerDb();
  });
}

export function closeServerDb(): void {
  db?.close();
  db = null;
}

export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | null | undefined | false>,
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
}

export async function liveness(workflowId: string, runId: string): Promise<string | null> {
  const debug = await dwGet<{ execution: { liveness_state?: string | null } }>(
    `/workflows/${encodeURIComponent(workflowId)}/runs/${encodeURIComponent(runId)}/debug`,
  );
  return debug.execution.liveness_state ?? null;
}

/**
 * Starts an `OpsRestockWorkflow` run and loses its timer task once the worker has scheduled it: the
 * run is then `repair_needed` (v2-model §7.1 "missing transport").
 */
export async function stuckRestockRun(workflowId: string): Promise<string> {
  const runId = await startRun("OpsRestockWorkflow", workflowId, [`sku-${workflowId}`]);
  if (!(await waitForReadyTask(serverDb(), runId, "timer", 20_000)))
    throw new Error(`${workflowId}: the timer task never appeared`);
  const removed = loseTransport(serverDb(), runId);
  if (removed < 1) throw new Error(`${workflowId}: no task row to lose`);
  await waitFor(
    `${workflowId} to be repair_needed`,
    async () => (await liveness(workflowId, runId)) === "repair_needed",
  );
  return runId;
}

export async function runStatus(workflowId: string, runId: string): Promise<string> {
  const run = await dwGet<{ status: string }>(
    `/workflows/${encodeURIComponent(workflowId)}/runs/${encodeURIComponent(runId)}`,
  );
  return run.status;
}

export async function historyOf(
  workflowId: string,
  runId: string,
): Promise<{ event_type: string; payload: Record<string, unknown> }[]> {
  const page = await dwGet<{ events: { event_type: string; payload: Record<string, unknown> }[] }>(
    `/workflows/${encodeURIComponent(workflowId)}/runs/${encodeURIComponent(runId)}/history?page_size=1000`,
  );
  return page.events;
}

export function runPath(workflowId: string, runId: string, namespace = "default"): string {
  return `/namespaces/${namespace}/workflows/${encodeURIComponent(workflowId)}/runs/${encodeURIComponent(runId)}`;
}

/**
 * Registers a namespace on the embedded server. Its control plane has no create endpoint, so the
 * row goes straight into its SQLite file, as the server's own seeding writes the default one.
 */
export function registerNamespace(name: string): void {
  const now = Date.now();
  serverDb()
    .prepare("INSERT OR IGNORE INTO namespaces (name, description, created_at, updated_at) VALUES (?, ?, ?, ?)")
    .run(name, "e2e namespace", now, now);
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export interface ExtraConsole {
  baseUrl: string;
  /** Where the console's stdout and stderr went, when asked for (`logFile` option). */
  logFile?: string;
  stop(): Promise<void>;
}

/**
 * A second console process (same production build) with other settings: read-only mode, a token
 * the server grants a lesser role, console access control. Killed by its own pid. With `logFile`,
 * its output is kept there (and shown if it fails to start).
 */
export async function startConsole(
  extraEnv: Record<string, string>,
  opts: { logFile?: string } = {},
): Promise<ExtraConsole> {
  const port = await freePort();
  const out = opts.logFile ? openSync(opts.logFile, "w") : undefined;
  const child: ChildProcess = spawn("npx", ["next", "start", "-p", String(port), "-H", "127.0.0.1"], {
    env: {
      ...process.env,
      NEXT_TELEMETRY_DISABLED: "1",
      DW_SERVER_URL: dwBaseUrl(),
      DW_NAMESPACE: "default",
      DW_TOKEN: env("E2E_TOKEN"),
      ...extraEnv,
    },
    stdio: out === undefined ? "ignore" : ["ignore", out, out],
    detached: true,
  });
  if (out !== undefined) closeSync(out);
  const baseUrl = `http://127.0.0.1:${port}`;
  const listening = async (): Promise<boolean> => {
    try {
      return (await fetch(`${baseUrl}/api/healthz`)).ok;
    } catch {
      return false;
    }
  };
  try {
    await waitFor("the extra console to listen", listening, 60_000);
  } catch (e) {
    if (!opts.logFile) throw e;
    throw new Error(`the console did not start:\n${readFileSync(opts.logFile, "utf8")}`);
  }
  return {
    baseUrl,
    logFile: opts.logFile,
    async stop() {
      if (child.pid !== undefined && child.exitCode === null) {
        const exited = new Promise((resolve) => child.once("exit", resolve));
        // The group is this console's own (detached): `npx` and the `next` process it started.
        process.kill(-child.pid, "SIGTERM");
        await exited;
      }
    },
  };
}

/** Light and dark full-page screenshots under test-results/screenshots/ (the theme follows the OS). */
export async function snapBothThemes(page: Page, name: string): Promise<void> {
  const dir = join(__dirname, "..", "test-results", "screenshots");
  for (const scheme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.waitForFunction(
      (dark) => document.documentElement.classList.contains("dark") === dark,
      scheme === "dark",
    );
    await page.screenshot({ path: join(dir, `${name}-${scheme}.png`), fullPage: true });
  }
  await page.emulateMedia({ colorScheme: "light" });
}

/** The console's three e2e people (BREAKWATER_AUTH=password), one per role. */
export const PASSWORDS = { ada: "ada-admin-pass", ola: "ola-operator-pass", vic: "vic-viewer-pass" } as const;
export const SESSION_SECRET = "e2e-session-secret-0123456789abcdef";

/** Writes a BREAKWATER_USERS_FILE for ada (admin), ola (operator) and vic (viewer) into `dir`. */
export function writeUsersFile(dir: string): string {
  const usersFile = join(dir, "users.json");
  const users = [
    { user: "ada", hash: bcrypt.hashSync(PASSWORDS.ada, 8), role: "admin" },
    { user: "ola", hash: bcrypt.hashSync(PASSWORDS.ola, 8), role: "operator" },
    { user: "vic", hash: bcrypt.hashSync(PASSWORDS.vic, 8), role: "viewer" },
  ];
  writeFileSync(usersFile, JSON.stringify(users));
  return usersFile;
}
