import { spawn } from "node:child_process";
import { readdirSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";

/**
 * `npm run bench [-- filter…]`: runs the benchmark entry points in bench/ (top-level `*.ts` except
 * this file; helpers live in bench/support/) one after another, each in its own process so one
 * cannot skew the next, then prints every budget figure they reported as one table. A filter
 * keeps the benches whose file name contains it (`npm run bench -- list run-detail`).
 *
 * Order: the quick static one first, then the benches that need the machine to themselves, the
 * 2-minute load test last. Entries not named here run after these, alphabetically.
 */

const ORDER = ["first-load-js.ts", "list-and-metrics.ts", "run-detail.ts", "engine-throughput.ts", "console-load.ts"];
/** A bench that takes longer than this is killed (each bench also bounds itself). */
const LIMIT_MS = 60 * 60_000;

const here = __dirname;
const filters = process.argv.slice(2).filter((a) => a !== "--");
const found = readdirSync(here).filter((f) => f.endsWith(".ts") && f !== "run.ts");
const entries = [...ORDER.filter((f) => found.includes(f)), ...found.filter((f) => !ORDER.includes(f)).sort()].filter(
  (f) => filters.length === 0 || filters.some((q) => f.includes(q)),
);
if (entries.length === 0) {
  console.error(`no bench matches ${filters.join(", ")} (have: ${found.join(", ")})`);
  process.exit(1);
}

interface Figure {
  bench: string;
  cells: string[];
}

function runOne(file: string, figures: Figure[]): Promise<{ ok: boolean; seconds: number }> {
  const started = Date.now();
  return new Promise((resolve) => {
    // With this process's Node flags (`npm run bench`: tsx, and WebSocket on Node 20 for bench/support/inspector.ts).
    const child = spawn(process.execPath, [...process.execArgv, join(here, file)], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    let pending = "";
    child.stdout.on("data", (chunk: Buffer) => {
      process.stdout.write(chunk);
      pending += chunk.toString();
      const lines = pending.split("\n");
      pending = lines.pop() ?? "";
      for (const line of lines) {
        if (line.startsWith("figure | "))
          figures.push({ bench: file.replace(/\.ts$/, ""), cells: line.split(" | ").slice(1) });
      }
    });
    const timer = setTimeout(() => {
      console.log(`${file} exceeded ${LIMIT_MS / 60_000} min: stopping it`);
      child.kill("SIGTERM");
    }, LIMIT_MS);
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      const seconds = (Date.now() - started) / 1000;
      if (code !== 0) console.log(`${file} failed (${signal ?? code})`);
      resolve({ ok: code === 0, seconds });
    });
  });
}

function table(rows: string[][]): string {
  const widths = (rows[0] ?? []).map((_, i) => Math.max(...rows.map((r) => (r[i] ?? "").length)));
  return rows
    .map((r) =>
      r
        .map((c, i) => c.padEnd(widths[i] ?? 0))
        .join(" | ")
        .trimEnd(),
    )
    .join("\n");
}

async function main(): Promise<void> {
  const started = Date.now();
  const figures: Figure[] = [];
  const durations: string[] = [];
  let failed = 0;
  console.log(`benches: ${entries.join(", ")} (load ${(loadavg()[0] ?? 0).toFixed(1)})`);
  for (const file of entries) {
    console.log(`\n# ${file}`);
    const r = await runOne(file, figures);
    durations.push(`${file} ${r.seconds.toFixed(0)} s${r.ok ? "" : " (failed)"}`);
    if (!r.ok) failed += 1;
  }
  console.log("\n# budget figures");
  if (figures.length > 0) {
    console.log(
      table([
        ["figure", "measured", "budget", "ok?", "load"],
        ...figures.map((f) => [
          f.cells[0] ?? "",
          f.cells[1] ?? "",
          f.cells[2] ?? "",
          f.cells[3] ?? "",
          f.cells[4] ?? "",
        ]),
      ]),
    );
  } else {
    console.log("(no figures reported)");
  }
  const over = figures.filter((f) => f.cells[3] === "OVER").length;
  console.log(
    `\n${figures.length} figures, ${over} over budget, ${failed} bench(es) failed; took ${((Date.now() - started) / 1000).toFixed(0)} s (${durations.join(", ")})`,
  );
  process.exit(failed > 0 ? 1 : 0);
}

void main();
