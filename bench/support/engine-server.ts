import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { systemClock } from "../../server/clock";
import { createEngine } from "../../server/engine";
import { buildApp } from "../../server/http/app";
import { openDb } from "../../server/store/db";
import { encodePayload } from "../../server/codec/codec";

/**
 * The embedded server as the benchmark's child process (its own core), driven over IPC:
 * `{start: {count, workflowType, args}}` starts runs, `{status: true}` answers progress,
 * `{stop: true}` closes and deletes the temp data. Workers reach it over loopback HTTP only.
 */

type Message = { start: { count: number; workflowType: string; args: unknown[] } } | { status: true } | { stop: true };

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "breakwater-bench-"));
  const db = openDb(join(dir, "bench.db"), systemClock);
  const engine = createEngine({ db, clock: systemClock });
  const app = buildApp({
    db,
    clock: systemClock,
    engine,
    auth: {
      driver: "token",
      tokens: { worker: process.env.BENCH_WORKER_TOKEN ?? null, operator: null, admin: null, legacy: null },
      backwardCompatible: true,
    },
  });
  const address = await app.listen({ port: 0, host: "127.0.0.1" });
  const send = (m: unknown): void => {
    process.send?.(m);
  };
  send({ address });

  process.on("message", (raw: Message) => {
    if ("start" in raw) {
      const { count, workflowType, args } = raw.start;
      const startedAt = Date.now();
      for (let i = 0; i < count; i++) {
        engine.startWorkflow({
          namespace: "default",
          workflow_id: `bench-${startedAt}-${i}`,
          workflow_type: workflowType,
          task_queue: "default",
          input: encodePayload(args),
        });
      }
      send({ started: count });
    } else if ("status" in raw) {
      const completed = (
        db.prepare("SELECT COUNT(*) AS n FROM workflow_runs WHERE status = 'completed'").get() as { n: number }
      ).n;
      const failed = (
        db
          .prepare("SELECT COUNT(*) AS n FROM workflow_runs WHERE status IN ('failed', 'cancelled', 'terminated')")
          .get() as { n: number }
      ).n;
      const activities = (
        db.prepare("SELECT COUNT(*) AS n FROM activity_executions WHERE status = 'completed'").get() as { n: number }
      ).n;
      const cpu = process.cpuUsage();
      send({ completed, failed, activities, cpuMs: (cpu.user + cpu.system) / 1000 });
    } else {
      void app.close().then(() => {
        db.close();
        rmSync(dir, { recursive: true, force: true });
        process.exit(0);
      });
    }
  });
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
