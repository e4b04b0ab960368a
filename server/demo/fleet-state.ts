import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { z } from "zod";

/**
 * What a demo fleet must remember to resume on the same data file instead of seeding every
 * scenario again (issue 15: a restart showed each scenario twice): the id suffix its runs and
 * workers carry, the seeded runs, and the counters that name the next order and restock.
 * Kept beside the SQLite file (`<data>.demo.json`), written atomically (temp file + rename).
 */
const stateSchema = z.object({
  version: z.literal(1),
  suffix: z.string().min(1),
  seeded: z.record(z.string(), z.object({ workflowId: z.string(), runId: z.string().nullable() })),
  orderCount: z.number().int().nonnegative(),
  restocks: z.number().int().nonnegative(),
});
export type FleetState = z.infer<typeof stateSchema>;

export function fleetStatePath(dataFile: string): string {
  return `${dataFile}.demo.json`;
}

/** The saved state, or null when there is none or it cannot be read (then the fleet seeds afresh, and says why). */
export function loadFleetState(path: string, log: (line: string) => void = () => undefined): FleetState | null {
  if (!existsSync(path)) return null;
  try {
    return stateSchema.parse(JSON.parse(readFileSync(path, "utf8")));
  } catch (e) {
    log(`ignoring unreadable fleet state ${path}: ${e instanceof Error ? e.message : String(e)}`);
    return null;
  }
}

export function saveFleetState(path: string, state: FleetState): void {
  const tmp = `${path}.tmp`;
  // Owner-only like the data file and tokens beside it (decision 0043); a leftover temp file keeps
  // its old mode, so it goes first.
  rmSync(tmp, { force: true });
  writeFileSync(tmp, JSON.stringify(state), { mode: 0o600 });
  renameSync(tmp, path);
}

export function removeFleetState(path: string): void {
  for (const p of [path, `${path}.tmp`]) rmSync(p, { force: true });
}
