import { spawn, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import type { ChildProcess } from "node:child_process";
import { createServer } from "node:net";
import { loadavg } from "node:os";
import { join } from "node:path";
import { distDir } from "../../lib/http/dist-dir";

/** Shared plumbing of the benches: figure lines, percentiles, child processes, readiness waits. */

export const ROOT = join(__dirname, "..", "..");

/** "load 11.3": the shared 2-core machine's 1-minute load average, printed beside every figure. */
export function load(): string {
  return `load ${(loadavg()[0] ?? 0).toFixed(1)}`;
}

/**
 * "a fixed JS loop 170 ms": the same work every time, timed on this thread (median of three). The
 * host's other tenants slow this machine's cores without showing in its load average, so two runs'
 * figures compare only beside this.
 */
export function cpuCalibration(): string {
  const times: number[] = [];
  for (let round = 0; round < 3; round++) {
    const t0 = performance.now();
    for (let i = 0; i < 100_000_000; i++) calibrationSink = (calibrationSink + (i % 7)) | 0;
    times.push(performance.now() - t0);
  }
  const middle = percentile(
    times.sort((a, b) => a - b),
    50,
  );
  return `a fixed JS loop ${middle.toFixed(0)} ms`;
}
/** Where the calibration loop's result goes: kept by the module, so V8 cannot drop the loop as dead. */
let calibrationSink = 0;

/** The i-th element of a list walked round and round; the list must not be empty. */
export function cyclic<T>(list: readonly T[], i: number): T {
  if (list.length === 0) throw new Error("cyclic: the list is empty");
  return list[i % list.length] as T;
}

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? Number.NaN;
}

export function ms(n: number): string {
  return Number.isFinite(n) ? `${n < 10 ? n.toFixed(2) : n.toFixed(1)} ms` : "n/a";
}

export interface Percentiles {
  n: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
}

export function percentiles(samples: readonly number[]): Percentiles {
  const s = [...samples].sort((a, b) => a - b);
  return {
    n: s.length,
    p50: percentile(s, 50),
    p95: percentile(s, 95),
    p99: percentile(s, 99),
    max: s.at(-1) ?? Number.NaN,
  };
}

export function describePercentiles(p: Percentiles): string {
  return `n=${p.n} p50=${ms(p.p50)} p95=${ms(p.p95)} p99=${ms(p.p99)} max=${ms(p.max)}`;
}

/**
 * One budget figure as a plain line bench/run.ts collects into its final table:
 * `figure | <name> | <measured> | <budget> | <ok|OVER|n/a> | load <x>`. `ok` null means there is
 * no budget to hold the figure against (a peer figure, or not measurable).
 */
export function figure(name: string, measured: string, budget: string, ok: boolean | null): void {
  console.log(["figure", name, measured, budget, ok === null ? "n/a" : ok ? "ok" : "OVER", load()].join(" | "));
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const addr = srv.address();
      const port = typeof addr === "object" && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

const children = new Set<ChildProcess>();

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    // Each child leads its own process group, so `next start`'s workers go with it.
    process.kill(-child.pid, signal);
  } catch {
    // already gone
  }
}

// A bench that throws or is interrupted must not leave a server or a browser behind.
process.once("exit", () => {
  for (const c of children) killGroup(c, "SIGKILL");
});
for (const sig of ["SIGINT", "SIGTERM"] as const) {
  process.once(sig, () => {
    for (const c of children) killGroup(c, "SIGKILL");
    process.exit(130);
  });
}

export interface Spawned {
  child: ChildProcess;
  /** Everything the child printed so far (stdout and stderr), for error messages. */
  output: () => string;
  stop: () => Promise<void>;
}

/** Starts a child in its own process group with piped output, remembered for cleanup. */
export function spawnChild(
  cmd: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  opts: { echo?: boolean } = {},
): Spawned {
  const child = spawn(cmd, args, { cwd: ROOT, env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  children.add(child);
  let out = "";
  const collect = (chunk: Buffer): void => {
    out += chunk.toString();
    if (out.length > 200_000) out = out.slice(-100_000);
    if (opts.echo) process.stdout.write(chunk);
  };
  child.stdout?.on("data", collect);
  child.stderr?.on("data", collect);
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((r) => child.once("exit", r));
      killGroup(child, "SIGTERM");
      const timer = setTimeout(() => killGroup(child, "SIGKILL"), 5000);
      await exited;
      clearTimeout(timer);
    }
    children.delete(child);
  };
  return { child, output: () => out, stop };
}

/**
 * Env without any DW_* settings of the caller's shell, and DW_AUTH_DRIVER=none: the embedded server
 * runs without auth (asked for explicitly: unset, it would make its own tokens, decision 0043) and the
 * consoles and relays the benches start send none. Benches measure speed on loopback, not access.
 */
export function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const k of Object.keys(env)) if (/^DW_/.test(k)) delete env[k];
  return { ...env, NEXT_TELEMETRY_DISABLED: "1", DW_AUTH_DRIVER: "none", ...extra };
}

/** The embedded server (`server/main.ts`) on `dataFile`, auto repair off; resolves once it listens. */
export async function startEmbeddedServer(dataFile: string, timeoutMs = 120_000): Promise<Spawned & { url: string }> {
  const port = await freePort();
  const s = spawnChild(
    process.execPath,
    ["--import", "tsx", join(ROOT, "server", "main.ts")],
    cleanEnv({ DW_EMBEDDED_PORT: String(port), DW_EMBEDDED_DATA: dataFile, DW_AUTO_REPAIR: "0" }),
  );
  const deadline = Date.now() + timeoutMs;
  while (!/listening on/.test(s.output())) {
    if (s.child.exitCode !== null)
      throw new Error(`embedded server exited (${s.child.exitCode}): ${s.output().slice(-2000)}`);
    if (Date.now() > deadline) {
      await s.stop();
      throw new Error(`embedded server did not listen within ${timeoutMs / 1000} s: ${s.output().slice(-2000)}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { ...s, url: `http://127.0.0.1:${port}` };
}

export async function waitForHttp(url: string, timeoutMs: number, alive: () => boolean): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!alive()) throw new Error(`process serving ${url} exited`);
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(5000) });
      await res.arrayBuffer();
      if (res.status < 500) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${url} did not answer within ${timeoutMs / 1000} s`);
}

/** Rejects after `limitMs` so that a hung step fails the bench instead of holding `npm run bench`. */
export function bounded<T>(what: string, limitMs: number, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`${what} did not finish within ${Math.round(limitMs / 1000)} s`)),
      limitMs,
    );
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/** Runs `next build` when there is no production build yet (<dist>/BUILD_ID missing; dist: BREAKWATER_DIST_DIR or .next). */
export function ensureBuild(): void {
  const dist = distDir();
  if (existsSync(join(ROOT, dist, "BUILD_ID"))) return;
  console.log(`no production build (${dist}/BUILD_ID missing): running next build`);
  const t0 = Date.now();
  const r = spawnSync(join(ROOT, "node_modules", ".bin", "next"), ["build"], {
    cwd: ROOT,
    env: cleanEnv({}),
    stdio: "inherit",
    timeout: 15 * 60_000,
  });
  if (r.status !== 0) throw new Error(`next build failed (${r.signal ?? r.status})`);
  // The compressed copies the console serves its script and style files from (decision 0037).
  const c = spawnSync(process.execPath, ["--import", "tsx", "scripts/compress-static.ts", dist], {
    cwd: ROOT,
    stdio: "inherit",
  });
  if (c.status !== 0) throw new Error(`compress-static failed (${c.signal ?? c.status})`);
  console.log(`next build took ${((Date.now() - t0) / 1000).toFixed(0)} s (${load()})`);
}
