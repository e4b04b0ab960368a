import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { seedLongRun } from "../bench/support/history-seed";
import { systemClock } from "../server/clock";
import { openDb } from "../server/store/db";

/**
 * Long closed runs for e2e/run-view.spec.ts, written into the embedded server's SQLite file BEFORE
 * the server opens it (playwright.config.ts runs this script first in the embedded server's
 * command): runs of thousands of events cannot be made through a worker within a spec's time, and
 * writing the file while the server runs would bypass its caches. The rows are the engine's own
 * shapes (bench/support/history-seed.ts: the engine starts and terminates the run; the activity
 * cycles in between are stored as the engine records them).
 *
 *  - `paged`: 2,500 events, three history pages at page_size 1000 (progress, ledger, cache, export);
 *  - `long`: 30,000 events, so that a walk is still reading when the page is left.
 *
 * Run ids go to `run-view-seed.json` beside the database, where the spec reads them.
 */

export const RUN_VIEW_SEED = {
  paged: { id: "e2e-run-view-paged", events: 2500 },
  long: { id: "e2e-run-view-long", events: 30_000 },
};

export interface SeededRunViewRuns {
  paged: { workflowId: string; runId: string };
  long: { workflowId: string; runId: string };
}

export function seedFileFor(dataFile: string): string {
  return join(dirname(dataFile), "run-view-seed.json");
}

/** The seeded runs, or null when this server was not seeded (an external E2E_DW_SERVER_URL). */
export function seededRuns(): SeededRunViewRuns | null {
  const dir = process.env.E2E_DATA_DIR;
  if (!dir) return null;
  const file = join(dir, "run-view-seed.json");
  return existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as SeededRunViewRuns) : null;
}

function main(): void {
  const dataFile = process.env.DW_EMBEDDED_DATA;
  if (!dataFile) throw new Error("DW_EMBEDDED_DATA is not set: nothing to seed");
  const out = seedFileFor(dataFile);
  if (existsSync(out)) return;
  const t0 = Date.now();
  const db = openDb(dataFile, systemClock);
  try {
    const paged = seedLongRun(db, RUN_VIEW_SEED.paged.id, RUN_VIEW_SEED.paged.events);
    const long = seedLongRun(db, RUN_VIEW_SEED.long.id, RUN_VIEW_SEED.long.events);
    const seeded: SeededRunViewRuns = {
      paged: { workflowId: paged.workflowId, runId: paged.runId },
      long: { workflowId: long.workflowId, runId: long.runId },
    };
    writeFileSync(out, JSON.stringify(seeded));
  } finally {
    db.close();
  }
  console.error(`run-view seed: ${Date.now() - t0} ms`);
}

if (require.main === module) main();
