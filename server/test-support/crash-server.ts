import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * A real embedded server process on a real SQLite file, for the SIGKILL tests: `launch()` starts
 * one (again and again on the same file, as a restart after kill -9), `cleanup()` kills what is
 * left and removes the file. A real process cannot share a FakeClock, so the waits are bounded.
 */

const ROOT = join(__dirname, "..", "..");
const START_TIMEOUT_MS = 20_000;

export interface CrashServer {
  child: ChildProcess;
  url: string;
}

export interface CrashHarness {
  /** The SQLite file every launch opens; a test may open it too to check what was written. */
  dataFile: string;
  launch(): Promise<CrashServer>;
  cleanup(): void;
}

/** `env` is added to the process's environment (tokens, leases, switches) for every launch. */
export function crashHarness(prefix: string, env: Record<string, string>): CrashHarness {
  const dir = mkdtempSync(join(tmpdir(), `${prefix}-`));
  const dataFile = join(dir, "crash.db");
  const children: ChildProcess[] = [];
  const launch = (): Promise<CrashServer> => {
    const child = spawn(process.execPath, ["--import", "tsx", "server/main.ts"], {
      cwd: ROOT,
      env: { ...process.env, DW_EMBEDDED_PORT: "0", DW_EMBEDDED_DATA: dataFile, DW_AUTH_DRIVER: "token", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    children.push(child);
    return listening(child);
  };
  const cleanup = (): void => {
    for (const c of children) if (c.exitCode === null && c.pid !== undefined) c.kill("SIGKILL");
    rmSync(dir, { recursive: true, force: true });
  };
  return { dataFile, launch, cleanup };
}

// Resolves with the URL the server prints once it listens; rejects if it exits or never does.
function listening(child: ChildProcess): Promise<CrashServer> {
  return new Promise((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => reject(new Error(`server did not start: ${out}`)), START_TIMEOUT_MS);
    child.stdout?.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const m = /listening on (http:\/\/[\d.:]+)/.exec(out);
      if (m?.[1]) {
        clearTimeout(timer);
        resolve({ child, url: m[1] });
      }
    });
    child.stderr?.on("data", (chunk: Buffer) => (out += chunk.toString()));
    child.once("exit", (code) => reject(new Error(`server exited ${code}: ${out}`)));
  });
}
