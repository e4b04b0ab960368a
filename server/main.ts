import { rmSync } from "node:fs";
import { resolve } from "node:path";
import { systemClock } from "./clock";
import type { LeaseConfig } from "./engine";
import { createEngine } from "./engine";
import { startScheduleEvaluator } from "./engine/schedule-evaluator";
import { buildApp } from "./http/app";
import { embeddedAuthFromEnv, exportSigningFromEnv } from "./http/control-plane/config";
import type { EmbeddedAuth } from "./http/control-plane/config";
import { hostPolicyFromEnv } from "./http/hosts";
import { REPAIR_POLICY } from "./engine/task-health";
import { runRepairPass } from "./engine/repair-pass";
import { openDb } from "./store/db";
import { startDemoFleet } from "./demo/fleet";
import type { DemoFleet } from "./demo/fleet";
import { fleetStatePath, removeFleetState } from "./demo/fleet-state";
import { START_NONCE_VARIABLE, installStartProof } from "./start-proof";

/** How often timeouts, lease expiry, timers and the deadline watchdog run. */
const SWEEP_INTERVAL_MS = 1000;

function seconds(name: string): number | undefined {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === "") return undefined;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${name} must be a positive number of seconds, got ${raw}`);
  return n * 1000;
}

/** DW_WORKFLOW_TASK_LEASE_SECONDS / DW_ACTIVITY_LEASE_SECONDS override the 300 s leases (tests shorten them). */
function leasesFromEnv(): Partial<LeaseConfig> {
  const out: Partial<LeaseConfig> = {};
  const wf = seconds("DW_WORKFLOW_TASK_LEASE_SECONDS");
  const act = seconds("DW_ACTIVITY_LEASE_SECONDS");
  if (wf !== undefined) out.workflowTaskMs = wf;
  if (act !== undefined) out.activityMs = act;
  return out;
}

/** The demo fleet's workers use the worker token and its client the operator token (admin if only that is set). */
function fleetTokens(embedded: EmbeddedAuth): {
  token?: string;
  workerToken?: string;
  operatorToken?: string;
  adminToken?: string;
} {
  if (embedded.source === "file")
    return {
      workerToken: embedded.tokens.worker,
      operatorToken: embedded.tokens.operator,
      adminToken: embedded.tokens.admin,
    };
  const { worker, operator, admin, legacy } = embedded.auth.tokens;
  return {
    token: legacy ?? undefined,
    workerToken: worker ?? undefined,
    operatorToken: operator ?? admin ?? undefined,
    adminToken: admin ?? legacy ?? undefined,
  };
}

/**
 * What an operator needs to know about this server's auth, said once at start-up. Never a token:
 * the file's path, which key a worker uses, and how the official Python SDK takes it (its Client
 * reads no token variable itself: `Client(url, worker_token=…)`, durable_workflow/client.py at
 * 2.12.0; the SDK's docs pass DURABLE_WORKFLOW_WORKER_TOKEN there, sdk-python docs/index.md).
 */
function authBanner(embedded: EmbeddedAuth): string[] {
  if (embedded.source === "env") {
    if (embedded.auth.driver !== "none") return [`auth: token driver with the tokens from the environment`];
    return [
      "WARNING: DW_AUTH_DRIVER=none: this server grants admin to every caller — any local process, and any web",
      "WARNING: page that reaches it through a name in DW_EMBEDDED_ALLOWED_HOSTS. Use it only for tests and benchmarks.",
    ];
  }
  const path = resolve(embedded.path);
  const created = embedded.created;
  return [
    `auth: token driver; one token per role (worker, operator, admin) ${created ? "made now and " : ""}kept in ${path}`,
    "  (owner-only; the same on every restart and after --fresh; delete the file to have new ones made).",
    `  SDK workers send its "worker" token as a bearer token. The official Python SDK reads no token variable by`,
    "  itself: pass it as Client(url, worker_token=...), as its docs do with DURABLE_WORKFLOW_WORKER_TOKEN:",
    `  export DURABLE_WORKFLOW_WORKER_TOKEN="$(node -p 'require(process.argv[1]).worker' ${JSON.stringify(path)})"`,
  ];
}

/**
 * Entry point: `node --import tsx server/main.ts [--fresh] [--demo]`. Listens on
 * 127.0.0.1:DW_EMBEDDED_PORT (default 8080; 0 picks a free port) with data in DW_EMBEDDED_DATA
 * (default .data/breakwater.db); `--fresh` deletes the data file first; `--demo` runs the demo
 * fleet's workers in this process (see docs/decisions/0005-demo-mode-defaults.md).
 */
async function main(): Promise<void> {
  const demo = process.argv.includes("--demo");
  if (demo) {
    // Demo defaults (each overridable): stuck runs stay stuck until an operator repairs them, and
    // a crashed worker's activity lease expires within a minute instead of five.
    process.env.DW_AUTO_REPAIR ??= "0";
    process.env.DW_ACTIVITY_LEASE_SECONDS ??= "30";
  }
  const file = process.env.DW_EMBEDDED_DATA ?? ".data/breakwater.db";
  const port = Number(process.env.DW_EMBEDDED_PORT ?? 8080);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new Error(`DW_EMBEDDED_PORT must be a port number, got ${process.env.DW_EMBEDDED_PORT}`);
  if (process.argv.includes("--fresh")) {
    for (const suffix of ["", "-wal", "-shm"]) rmSync(file + suffix, { force: true });
    removeFleetState(fleetStatePath(file));
  }

  // Tokens and hosts first: a refused tokens file or a bad DW_EMBEDDED_ALLOWED_HOSTS stops the start.
  const hosts = hostPolicyFromEnv();
  const db = openDb(file, systemClock);
  const embeddedAuth = embeddedAuthFromEnv(file);
  const engine = createEngine({ db, clock: systemClock, leases: leasesFromEnv() });
  const app = buildApp({
    db,
    clock: systemClock,
    engine,
    auth: embeddedAuth.auth,
    hosts,
    exportSigning: exportSigningFromEnv(),
  });
  // `npm start` checks it is talking to this process before giving the console the admin token.
  const startNonce = process.env[START_NONCE_VARIABLE];
  if (startNonce) installStartProof(app, startNonce);

  const sweep = setInterval(() => {
    try {
      engine.sweep();
    } catch (e) {
      console.error("sweep failed", e);
    }
  }, SWEEP_INTERVAL_MS);
  // The schedule evaluator (the real server's `schedule:evaluate`, a minutely cron job there):
  // every second here, in batches, so a fire is about a second late (docs/performance.md).
  const schedules = startScheduleEvaluator(engine, {
    intervalMs: SWEEP_INTERVAL_MS,
    onError: (e) => console.error("schedule evaluation failed", e),
  });
  // The automatic repair sweep (TaskWatchdog): at most one pass per loop_throttle_seconds.
  // DW_AUTO_REPAIR=0 turns it off (like a server whose worker loop does not wake the watchdog), so
  // stuck runs stay stuck until an operator repairs them — the console's e2e needs that.
  const autoRepair = !["0", "false", "off", "no"].includes((process.env.DW_AUTO_REPAIR ?? "").trim().toLowerCase());
  const repairSweep = setInterval(() => {
    if (!autoRepair) return;
    try {
      runRepairPass(engine);
    } catch (e) {
      console.error("repair pass failed", e);
    }
  }, REPAIR_POLICY.loop_throttle_seconds * 1000);

  const address = await app.listen({ host: "127.0.0.1", port });
  console.log(`breakwater embedded server listening on ${address} (data: ${file})`);
  for (const line of authBanner(embeddedAuth)) (line.startsWith("WARNING") ? console.warn : console.log)(line);
  if (hosts.allowed.length > 0)
    console.log(
      `answering loopback names and ${hosts.allowed.map((h) => h.hostname + (h.port ? `:${h.port}` : "")).join(", ")}`,
    );

  let fleet: DemoFleet | undefined;
  if (demo) {
    fleet = await startDemoFleet({
      baseUrl: address,
      db,
      engine,
      ...fleetTokens(embeddedAuth),
      restockSleepSeconds: (seconds("DW_DEMO_RESTOCK_SLEEP_SECONDS") ?? 120_000) / 1000,
      // A restart on the same file resumes the fleet instead of seeding every scenario again.
      statePath: fleetStatePath(file),
      log: (line) => console.log(`[demo] ${line}`),
    });
    const how = fleet.resumed ? "resumed" : "seeded";
    console.log(
      `demo fleet running (${Object.keys(fleet.seeded).length} ${how} scenarios, a new order every few seconds)`,
    );
  }

  const stop = async (): Promise<void> => {
    // Whatever still holds the loop (an activity mid-flight, a worker's long-poll), the process
    // is gone within ten seconds; every acknowledged write is already durable.
    setTimeout(() => process.exit(0), 10_000).unref();
    await fleet?.stop().catch((e: unknown) => console.error("demo fleet stop failed", e));
    clearInterval(sweep);
    schedules.stop();
    clearInterval(repairSweep);
    await app.close();
    db.close();
    process.exit(0);
  };
  process.once("SIGTERM", () => void stop());
  process.once("SIGINT", () => void stop());
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
