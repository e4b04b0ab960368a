import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { RoleTokens } from "./embedded-tokens";
import { CP_HEADERS, rawRequest, WORKER_HEADERS } from "./hostile/raw-client";

/**
 * `server/main.ts` as `npm run server` runs it, with no auth variable set (issue 37): it must not
 * grant admin to every local process. It runs the `token` driver with one token per role kept in
 * `<data>.tokens.json` (0600), made on first start and reused after a restart and `--fresh`.
 */
const ROOT = join(__dirname, "..", "..");
const dir = mkdtempSync(join(tmpdir(), "bw-embedded-auth-"));
const children: ChildProcess[] = [];

afterAll(() => {
  for (const c of children) if (c.exitCode === null && c.pid !== undefined) c.kill("SIGKILL");
  rmSync(dir, { recursive: true, force: true });
});

interface Launched {
  child: ChildProcess;
  url: string;
  output: () => string;
  stop: () => Promise<void>;
}

/** The caller's DW_* variables are dropped: only `env` configures the server. */
function launch(
  dataFile: string,
  env: Record<string, string> = {},
  args: string[] = [],
  banner: RegExp = /export DURABLE_WORKFLOW_WORKER_TOKEN=.*\n/,
): Promise<Launched> {
  const childEnv: NodeJS.ProcessEnv = { ...process.env };
  for (const k of Object.keys(childEnv)) if (k.startsWith("DW_")) delete childEnv[k];
  const child = spawn(process.execPath, ["--import", "tsx", "server/main.ts", ...args], {
    cwd: ROOT,
    env: { ...childEnv, DW_EMBEDDED_PORT: "0", DW_EMBEDDED_DATA: dataFile, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  let out = "";
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start: ${out}`)), 30_000);
    const onData = (chunk: Buffer): void => {
      out += chunk.toString();
      const m = /listening on (http:\/\/[\d.:]+)/.exec(out);
      // The auth banner follows the listening line; `banner` is its last line.
      if (m?.[1] && banner.test(out)) {
        clearTimeout(timer);
        resolve({
          child,
          url: m[1],
          output: () => out,
          stop: async () => {
            child.kill("SIGTERM");
            await exited;
          },
        });
      }
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`server exited ${String(code)}: ${out}`));
    });
  });
}

/** Exits with the start refused; resolves with the exit code and everything it printed. */
function refusedStart(dataFile: string): Promise<{ code: number | null; out: string }> {
  const childEnv: NodeJS.ProcessEnv = { ...process.env };
  for (const k of Object.keys(childEnv)) if (k.startsWith("DW_")) delete childEnv[k];
  const child = spawn(process.execPath, ["--import", "tsx", "server/main.ts"], {
    cwd: ROOT,
    env: { ...childEnv, DW_EMBEDDED_PORT: "0", DW_EMBEDDED_DATA: dataFile },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  let out = "";
  child.stdout.on("data", (c: Buffer) => (out += c.toString()));
  child.stderr.on("data", (c: Buffer) => (out += c.toString()));
  return new Promise((resolve) => child.once("exit", (code) => resolve({ code, out })));
}

async function call(
  url: string,
  method: string,
  path: string,
  token: string | null,
  body?: unknown,
  host?: string,
): Promise<{ status: number; json: Record<string, unknown> }> {
  const worker = path.startsWith("/api/worker/");
  const res = await rawRequest(url, {
    method,
    path,
    headers: {
      ...(worker ? WORKER_HEADERS : { ...CP_HEADERS, "content-type": "application/json" }),
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(host ? { host } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, json: (res.json ?? {}) as Record<string, unknown> };
}

const start = (id: string) => ({ workflow_id: id, workflow_type: "X", task_queue: "q" });

describe("npm run server with no auth variables", () => {
  it(
    "makes owner-only per-role tokens, refuses anonymous and wrong-role calls, and keeps the tokens on restart and --fresh",
    { timeout: 120_000 },
    async () => {
      const data = join(dir, "first.db");
      const file = `${data}.tokens.json`;
      let server = await launch(data);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      const tokens = JSON.parse(readFileSync(file, "utf8")) as RoleTokens;
      expect(new Set([tokens.worker, tokens.operator, tokens.admin]).size).toBe(3);
      expect(server.output()).toContain(file);
      expect(server.output()).toContain("DURABLE_WORKFLOW_WORKER_TOKEN");
      for (const secret of [tokens.admin, tokens.operator, tokens.worker])
        expect(server.output()).not.toContain(secret);

      // Anonymous: nothing on either plane (this is the open door of issue 37).
      expect((await call(server.url, "POST", "/api/workflows", null, start("anon-1"))).status).toBe(401);
      expect((await call(server.url, "POST", "/api/system/repair/pass", null, {})).status).toBe(401);
      expect(
        (
          await call(server.url, "POST", "/api/worker/register", null, {
            worker_id: "w",
            task_queue: "q",
            runtime: "python",
          })
        ).status,
      ).toBe(401);
      // The worker token works on the worker plane only.
      const denied = await call(server.url, "POST", "/api/system/repair/pass", tokens.worker, {});
      expect(denied.status).toBe(403);
      expect(denied.json).toMatchObject({ reason: "forbidden", role: "worker" });
      expect((await call(server.url, "POST", "/api/workflows", tokens.worker, start("w-1"))).status).toBe(403);
      expect(
        (
          await call(server.url, "POST", "/api/worker/register", tokens.worker, {
            worker_id: "w",
            task_queue: "q",
            runtime: "python",
          })
        ).status,
      ).toBe(201);
      // The operator starts runs but may not run system passes; the admin may.
      expect((await call(server.url, "POST", "/api/workflows", tokens.operator, start("op-1"))).status).toBe(201);
      expect((await call(server.url, "POST", "/api/system/repair/pass", tokens.operator, {})).status).toBe(403);
      expect((await call(server.url, "POST", "/api/system/repair/pass", tokens.admin, {})).status).toBe(200);
      await server.stop();

      // A restart (here with a configured host name) uses the same file and the same tokens.
      server = await launch(data, { DW_EMBEDDED_ALLOWED_HOSTS: "devbox.example.test" });
      expect(server.output()).not.toContain("made now");
      expect(JSON.parse(readFileSync(file, "utf8"))).toEqual(tokens);
      expect((await call(server.url, "GET", "/api/workflows/op-1", tokens.operator)).status).toBe(200);
      const port = new URL(server.url).port;
      expect(
        (
          await call(
            server.url,
            "GET",
            "/api/workflows/op-1",
            tokens.operator,
            undefined,
            `devbox.example.test:${port}`,
          )
        ).status,
      ).toBe(200);
      expect(
        (await call(server.url, "GET", "/api/workflows/op-1", tokens.operator, undefined, "rebind.attacker.test"))
          .status,
      ).toBe(421);
      await server.stop();

      // --fresh empties the data, not the credentials workers were given.
      server = await launch(data, {}, ["--fresh"]);
      expect((await call(server.url, "GET", "/api/workflows/op-1", tokens.operator)).status).toBe(404);
      expect((await call(server.url, "POST", "/api/system/repair/pass", tokens.admin, {})).status).toBe(200);
      await server.stop();
    },
  );

  it("refuses to start on a tokens file others can read, naming the file", { timeout: 60_000 }, async () => {
    const data = join(dir, "exposed.db");
    const server = await launch(data);
    await server.stop();
    chmodSync(`${data}.tokens.json`, 0o644);
    const { code, out } = await refusedStart(data);
    expect(code).not.toBe(0);
    expect(out).toContain(`${data}.tokens.json is readable or writable by other users (mode 644)`);
  });

  it(
    "keeps DW_AUTH_DRIVER=none open when asked for, with a warning, and makes no tokens file",
    { timeout: 60_000 },
    async () => {
      const data = join(dir, "open.db");
      const warning = /WARNING: DW_AUTH_DRIVER=none: this server grants admin to every caller[^]*benchmarks\.\n/;
      const server = await launch(data, { DW_AUTH_DRIVER: "none" }, [], warning);
      expect((await call(server.url, "POST", "/api/system/repair/pass", null, {})).status).toBe(200);
      expect(existsSync(`${data}.tokens.json`)).toBe(false);
      await server.stop();
    },
  );
});
