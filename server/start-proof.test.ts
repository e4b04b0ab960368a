import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { START_NONCE_VARIABLE, checkEmbeddedServer, newStartNonce, portAcceptsConnections } from "./start-proof";

/**
 * `npm start` gives the console the embedded server's admin token only after the server on the
 * port proves it is the child started with this start's nonce (scripts/start.ts, decision 0043).
 */
const ROOT = join(__dirname, "..");
const dir = mkdtempSync(join(tmpdir(), "bw-start-proof-"));
let child: ChildProcess | undefined;
let squatter: Server | undefined;

afterAll(async () => {
  if (child && child.exitCode === null) child.kill("SIGKILL");
  await new Promise((resolve) => (squatter ? squatter.close(resolve) : resolve(undefined)));
  rmSync(dir, { recursive: true, force: true });
});

/** `server/main.ts` as start.ts spawns it, with the nonce; resolves with its URL. */
function launchServer(nonce: string): Promise<string> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const k of Object.keys(env)) if (k.startsWith("DW_")) delete env[k];
  const c = spawn(process.execPath, ["--import", "tsx", "server/main.ts"], {
    cwd: ROOT,
    env: { ...env, DW_EMBEDDED_PORT: "0", DW_EMBEDDED_DATA: join(dir, "real.db"), [START_NONCE_VARIABLE]: nonce },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child = c;
  let out = "";
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer): void => {
      out += chunk.toString();
      const m = /listening on (http:\/\/[\d.:]+)/.exec(out);
      if (m?.[1]) resolve(m[1]);
    };
    c.stdout.on("data", onData);
    c.stderr.on("data", onData);
    c.once("exit", (code) => reject(new Error(`server exited ${String(code)}: ${out}`)));
  });
}

describe("a squatter answering 200 to everything", () => {
  let url = "";
  beforeAll(async () => {
    squatter = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end('{"status":"serving"}');
    });
    await new Promise<void>((resolve) => squatter!.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(squatter.address() as AddressInfo).port}`;
  });

  it("is refused: it cannot prove the nonce it never saw", async () => {
    const check = await checkEmbeddedServer(url, newStartNonce());
    expect(check.ok).toBe(false);
    expect(check.ok ? "" : check.reason).toContain("not the one this start spawned");
  });

  it("is seen before spawning: its port already accepts connections", async () => {
    expect(await portAcceptsConnections((squatter!.address() as AddressInfo).port)).toBe(true);
  });
});

describe("the real server/main.ts child started with the nonce", () => {
  const nonce = newStartNonce();
  let url = "";
  beforeAll(async () => {
    url = await launchServer(nonce);
  });

  it("is accepted", async () => {
    expect(await checkEmbeddedServer(url, nonce)).toEqual({ ok: true });
  });

  it("is refused by a start holding another nonce: the proof is bound to the nonce", async () => {
    expect((await checkEmbeddedServer(url, newStartNonce())).ok).toBe(false);
  });

  it("leaves a free port reported free once it is gone", async () => {
    const port = Number(new URL(url).port);
    const exited = new Promise((resolve) => child!.once("exit", resolve));
    child!.kill("SIGTERM");
    await exited;
    expect(await portAcceptsConnections(port)).toBe(false);
  });
});
