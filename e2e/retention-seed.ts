import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { FakeClock, systemClock } from "../server/clock";
import { createEngine } from "../server/engine";
import { encodeBlob } from "../server/codec/codec";
import { openDb } from "../server/store/db";

/**
 * A run closed 45 days ago for e2e/namespaces.spec.ts, written into the embedded server's SQLite file
 * before the server opens it (playwright.config.ts runs this first): retention counts days on the
 * server's clock, which a spec cannot move. The engine itself starts and terminates the run on a
 * clock set back, so its rows are the engine's own; with the default 30 days it is past the cutoff.
 */

export const RETENTION_SEED = { workflowId: "e2e-retention-expired", daysAgo: 45 };

export function retentionSeedFile(dataDir: string): string {
  return join(dataDir, "retention-seed.json");
}

/** The seeded run, or null when this server was not seeded (an external E2E_DW_SERVER_URL). */
export function retentionSeed(): { workflowId: string; runId: string } | null {
  const dir = process.env.E2E_DATA_DIR;
  if (!dir || !existsSync(retentionSeedFile(dir))) return null;
  return JSON.parse(readFileSync(retentionSeedFile(dir), "utf8")) as { workflowId: string; runId: string };
}

function main(): void {
  const dataFile = process.env.DW_EMBEDDED_DATA;
  if (!dataFile) throw new Error("DW_EMBEDDED_DATA is not set: nothing to seed");
  const out = retentionSeedFile(dirname(dataFile));
  if (existsSync(out)) return;
  const db = openDb(dataFile, systemClock);
  try {
    const clock = new FakeClock(Date.now() - RETENTION_SEED.daysAgo * 86_400_000);
    const engine = createEngine({ db, clock });
    const start = engine.startWorkflow({
      namespace: "default",
      workflow_id: RETENTION_SEED.workflowId,
      workflow_type: "RetentionSeedWorkflow",
      task_queue: "e2e-retention",
      input: { codec: "avro", blob: encodeBlob([]) },
    });
    if (start.run_id === null) throw new Error(`could not start ${RETENTION_SEED.workflowId}`);
    clock.advance(60_000);
    engine.terminateWorkflow({ namespace: "default", workflow_id: RETENTION_SEED.workflowId, reason: "seeded old" });
    writeFileSync(out, JSON.stringify({ workflowId: RETENTION_SEED.workflowId, runId: start.run_id }));
  } finally {
    db.close();
  }
}

if (require.main === module) main();
