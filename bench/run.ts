import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { join } from "node:path";

/**
 * `npm run bench`: runs every benchmark entry point in bench/ (top-level `*.ts` except this file;
 * helpers live in bench/support/) one after another, each in its own process so one cannot skew
 * the next, and exits non-zero when any of them failed.
 */
const here = __dirname;
const entries = readdirSync(here)
  .filter((f) => f.endsWith(".ts") && f !== "run.ts")
  .sort();
let failed = 0;
for (const file of entries) {
  console.log(`\n# ${file}`);
  const r = spawnSync(process.execPath, ["--import", "tsx", join(here, file)], { stdio: "inherit" });
  if (r.status !== 0) {
    failed += 1;
    console.log(`${file} failed (${r.signal ?? r.status})`);
  }
}
process.exit(failed > 0 ? 1 : 0);
