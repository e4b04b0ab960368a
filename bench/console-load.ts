import { join } from "node:path";
import { bounded, figure, load, ROOT, spawnChild } from "./support/report";

/**
 * 50 console sessions polling for 2 minutes while workers run: bench/load/console-sessions.test.ts
 * (a vitest suite with its own config, kept out of `npm test`) with LOAD_DURATION_MS=120000. Its printed
 * percentiles are echoed and the overall console p50/p95 become figures. There is no budget for
 * them in DESIGN.md; the suite itself fails on any 5xx or hung request.
 */

const DURATION_MS = Number(process.env.LOAD_DURATION_MS ?? 120_000);
const SESSIONS = Number(process.env.LOAD_SESSIONS ?? 50);

async function main(): Promise<void> {
  const vitest = spawnChild(
    join(ROOT, "node_modules", ".bin", "vitest"),
    ["run", "--config", join(ROOT, "bench", "load", "vitest.config.mts"), "--reporter=verbose"],
    {
      ...process.env,
      LOAD_DURATION_MS: String(DURATION_MS),
      LOAD_SESSIONS: String(SESSIONS),
      FORCE_COLOR: "0",
      NO_COLOR: "1",
    },
  );
  const code = await new Promise<number | null>((resolve) => vitest.child.once("exit", (c) => resolve(c)));
  await vitest.stop();
  const out = vitest.output();
  const start = out.indexOf("console load:");
  const block =
    start >= 0
      ? out
          .slice(start)
          .split("\n")
          .filter((l) => /^(console load:| {2}\S)/.test(l))
          .slice(0, 10)
      : [];
  for (const line of block) console.log(line);
  const overall = /console requests \d+ \(\d+\/s\)\s+p50=([0-9.]+)ms\s+p95=([0-9.]+)ms\s+p99=([0-9.]+)ms/.exec(out);
  if (code !== 0 || !overall) {
    console.log(out.slice(-3000));
    throw new Error(`console load suite ${code !== 0 ? `failed (exit ${code})` : "printed no percentiles"}`);
  }
  console.log(
    `console load: ${SESSIONS} sessions for ${DURATION_MS / 1000} s, clients in the server's process (${load()})`,
  );
  figure(`console load ${SESSIONS} sessions ${DURATION_MS / 1000} s: request p50`, `${overall[1]} ms`, "-", null);
  figure(`console load ${SESSIONS} sessions ${DURATION_MS / 1000} s: request p95`, `${overall[2]} ms`, "-", null);
}

bounded("console-load bench", DURATION_MS + 10 * 60_000, main()).then(
  () => process.exit(0),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);
