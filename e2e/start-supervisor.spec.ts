import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "@playwright/test";
import { freePort, waitFor } from "./operator-fixtures";

/**
 * `npm start` (scripts/start.ts) with the embedded server and the demo fleet, on its own ports and
 * data file: SIGKILL the server alone. The console must keep answering (it shows the server as
 * unreachable), the launcher restarts the server, and the restarted demo resumes its fleet on the
 * same file instead of seeding every scenario a second time (issue 15, "the console dies with
 * the embedded server"). With no auth variable set the embedded server makes its own role tokens
 * beside its data file and answers no anonymous caller; the launcher gives the console its tokens
 * (issue 37, decision 0043). The console uses the build the e2e run already made.
 */

const ROOT = join(__dirname, "..");

function launcherEnv(port: number, dwPort: number, dataFile: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const key of Object.keys(env))
    if (key.startsWith("DW_") || key.startsWith("BREAKWATER_AUTH") || key === "PORT") delete env[key];
  return { ...env, PORT: String(port), DW_EMBEDDED_PORT: String(dwPort), DW_EMBEDDED_DATA: dataFile };
}

async function stopLauncher(launcher: ChildProcess): Promise<void> {
  if (launcher.pid === undefined || launcher.exitCode !== null) return;
  const exited = new Promise((resolve) => launcher.once("exit", resolve));
  // The group is the launcher's own (detached): start.ts, the server and `next start`.
  process.kill(-launcher.pid, "SIGTERM");
  await exited;
}

function nth(values: number[], index: number, what: string): number {
  const value = values[index];
  if (value === undefined) throw new Error(`no ${what}`);
  return value;
}

test("the embedded server killed under npm start: the console stays up, the server returns, the demo resumes", async () => {
  test.setTimeout(240_000);
  const [port, dwPort] = [await freePort(), await freePort()];
  const dir = mkdtempSync(join(tmpdir(), "bw-start-"));
  let out = "";
  const launcher = spawn(process.execPath, ["--import", "tsx", "scripts/start.ts"], {
    cwd: ROOT,
    env: launcherEnv(port, dwPort, join(dir, "demo.db")),
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  launcher.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
  launcher.stderr.on("data", (chunk: Buffer) => (out += chunk.toString()));
  const consoleUrl = `http://127.0.0.1:${port}`;
  const runsThroughConsole = (): Promise<Response> =>
    fetch(`${consoleUrl}/api/dw/workflows?page_size=5`, { headers: { "X-Namespace": "default" } });
  const serverPids = (): number[] => [...out.matchAll(/server started \(pid (\d+)\)/g)].map((m) => Number(m[1]));
  const seededLines = (): number => [...out.matchAll(/\[demo\] seeded /g)].length;
  try {
    await waitFor(
      "the console and the seeded demo",
      async () => /Breakwater console:/.test(out) && /demo fleet running/.test(out),
      180_000,
    );
    const seeded = seededLines();
    expect(seeded).toBeGreaterThan(5);
    expect((await runsThroughConsole()).status).toBe(200);

    // The console got there with the server's own tokens; a caller without them gets nothing.
    const tokensFile = join(dir, "demo.db.tokens.json");
    expect(statSync(tokensFile).mode & 0o777).toBe(0o600);
    const tokens = JSON.parse(readFileSync(tokensFile, "utf8")) as { admin: string; operator: string };
    const direct = (token?: string): Promise<Response> =>
      fetch(`http://127.0.0.1:${dwPort}/api/workflows?page_size=1`, {
        headers: {
          "X-Durable-Workflow-Control-Plane-Version": "2",
          ...(token ? { Authorization: `Bearer ${token}` } : {}),
        },
      });
    expect((await direct()).status).toBe(401);
    expect((await direct(tokens.operator)).status).toBe(200);
    expect(out).not.toContain(tokens.admin);

    process.kill(nth(serverPids(), 0, `server pid in the launcher's output:\n${out}`), "SIGKILL");
    await waitFor(
      "the launcher to notice",
      async () => /console stays up, restarting the server in 1 s/.test(out),
      20_000,
    );
    // The console answers while the server is away, and says the server is unreachable.
    expect((await fetch(`${consoleUrl}/api/healthz`)).ok).toBe(true);

    await waitFor("the restarted server", async () => serverPids().length === 2 && /resumed fleet /.test(out), 60_000);
    await waitFor("reads through the console again", async () => (await runsThroughConsole()).status === 200, 30_000);
    expect(seededLines(), "no scenario seeded a second time").toBe(seeded);
    expect(launcher.exitCode).toBeNull();
  } finally {
    await stopLauncher(launcher);
    rmSync(dir, { recursive: true, force: true });
  }
});
