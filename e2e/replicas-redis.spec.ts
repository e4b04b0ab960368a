import { spawn, spawnSync } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { request as httpRequest } from "node:http";
import type { ClientRequest, IncomingMessage } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "@playwright/test";
import type { ExtraConsole } from "./operator-fixtures";
import {
  PASSWORDS,
  SESSION_SECRET,
  dwGet,
  freePort,
  startConsole,
  startRun,
  waitFor,
  writeUsersFile,
} from "./operator-fixtures";

/**
 * Issue 44 point 1 (decision 0064): two production consoles with the same session secret and users,
 * both given BREAKWATER_REDIS_URL of a real redis-server this spec starts (Debian's, own port and
 * temp directory, killed by its pid). What one replica did, the other must know:
 *  - a sign-out on A refuses the copied cookie on B;
 *  - wrong passwords spread over A and B draw on one login budget;
 *  - one person's reads in flight are bounded across A and B together;
 *  - the upstream long-poll cap (BREAKWATER_RUN_VIEW_LONG_POLLS) holds for A and B together;
 *  - A and B answer the same Overview metrics history, polled by one of them.
 * Counts and statuses over raw loopback HTTP, never timings.
 */

const dwHost = process.env.E2E_DW_HOST ?? "";
test.describe.configure({ mode: "serial" });
test.skip(!dwHost, "no Durable Workflow server for e2e");

interface Answer {
  status: number;
  headers: IncomingMessage["headers"];
  body: string;
}

function send(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: options.method ?? "GET", headers: options.headers, agent: false }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (body += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(options.body);
  });
}

/**
 * A request kept open: `first` resolves with the status and the body's first line (NDJSON) once they
 * arrive — a held long-poll answers only when the server does — and `close` drops the connection.
 */
function hold(
  url: string,
  headers: Record<string, string>,
): { first: Promise<{ status: number; line: string }>; close: () => void } {
  let req: ClientRequest | null = null;
  const first = new Promise<{ status: number; line: string }>((resolve, reject) => {
    req = httpRequest(url, { headers, agent: false }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      const onData = (chunk: string) => {
        text += chunk;
        const end = text.indexOf("\n");
        if (end >= 0) {
          res.off("data", onData);
          resolve({ status: res.statusCode ?? 0, line: text.slice(0, end) });
        }
      };
      res.on("data", onData);
      res.on("end", () => resolve({ status: res.statusCode ?? 0, line: text }));
      res.on("error", () => undefined);
    });
    req.on("error", (error) => (req?.destroyed ? undefined : reject(error)));
    req.end();
  });
  return { first, close: () => req?.destroy() };
}

interface Redis {
  url: string;
  port: number;
  stop(): Promise<void>;
}

async function startRedis(): Promise<Redis> {
  const port = Number(process.env.E2E_REDIS_PORT ?? (await freePort()));
  const dir = mkdtempSync(join(tmpdir(), "bw-e2e-redis-"));
  const child: ChildProcess = spawn(
    "redis-server",
    ["--port", String(port), "--bind", "127.0.0.1", "--dir", dir, "--save", "", "--appendonly", "no"],
    { stdio: "ignore" },
  );
  const cli = (...args: string[]) =>
    spawnSync("redis-cli", ["-p", String(port), ...args], { encoding: "utf8" }).stdout.trim();
  await waitFor("redis-server to answer", async () => cli("ping") === "PONG", 10_000);
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    async stop() {
      if (child.pid !== undefined && child.exitCode === null) {
        const exited = new Promise((resolve) => child.once("exit", resolve));
        process.kill(child.pid, "SIGKILL");
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function redisCli(redis: Redis, ...args: string[]): string {
  return spawnSync("redis-cli", ["-p", String(redis.port), ...args], { encoding: "utf8" }).stdout.trim();
}

function logIn(app: ExtraConsole, user: keyof typeof PASSWORDS, password: string = PASSWORDS[user], from = "10.0.0.1") {
  return send(`${app.baseUrl}/api/auth/login`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", origin: app.baseUrl, "x-forwarded-for": from },
    body: new URLSearchParams({ user, password, next: "/runs" }).toString(),
  });
}

function cookieOf(answer: Answer): string {
  const line = (answer.headers["set-cookie"] ?? []).find((l) => l.startsWith("bw_session=")) ?? "";
  expect(line, "a session cookie").not.toBe("");
  return line.split(";")[0]!;
}

let redis: Redis;
let a: ExtraConsole;
let b: ExtraConsole;
let dir: string;

test.beforeAll(async () => {
  test.setTimeout(180_000);
  redis = await startRedis();
  dir = mkdtempSync(join(tmpdir(), "bw-replicas-e2e-"));
  const usersFile = writeUsersFile(dir);
  const settings = {
    BREAKWATER_AUTH: "password",
    BREAKWATER_USERS_FILE: usersFile,
    BREAKWATER_SESSION_SECRET: SESSION_SECRET,
    BREAKWATER_TRUSTED_PROXIES: "127.0.0.1,::1",
    BREAKWATER_REDIS_URL: redis.url,
    BREAKWATER_READS_PER_PERSON: "2",
    BREAKWATER_STREAMS_PER_PERSON: "16",
    BREAKWATER_RUN_VIEW_LONG_POLLS: "2",
  };
  [a, b] = await Promise.all([
    startConsole(settings, { logFile: join(dir, "a.log") }),
    startConsole(settings, { logFile: join(dir, "b.log") }),
  ]);
});

test.afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
  await redis?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test("a sign-out on one replica refuses the copied cookie on the other", async () => {
  const cookie = cookieOf(await logIn(a, "vic"));
  const read = (app: ExtraConsole) => send(`${app.baseUrl}/api/dw/cluster/info`, { headers: { cookie } });
  expect((await read(b)).status).toBe(200);
  const out = await send(`${a.baseUrl}/api/auth/logout`, { method: "POST", headers: { cookie, origin: a.baseUrl } });
  expect(out.status).toBe(303);
  expect((await read(b)).status).toBe(401);
  expect((await read(a)).status).toBe(401);
  // A new sign-in is a new session, honoured everywhere.
  const again = cookieOf(await logIn(b, "vic"));
  expect((await send(`${a.baseUrl}/api/dw/cluster/info`, { headers: { cookie: again } })).status).toBe(200);
});

test("wrong passwords spread over both replicas draw on one login budget", async () => {
  const errors: string[] = [];
  // Five wrong passwords for one (address, user) pair are the budget (rate-limit.ts), alternating replicas.
  for (let i = 0; i < 6; i++) {
    const answer = await logIn(i % 2 === 0 ? a : b, "ola", "wrong-password", "10.7.7.7");
    expect(answer.status).toBe(303);
    errors.push(new URL(String(answer.headers.location), "http://x").searchParams.get("error") ?? "");
  }
  expect(errors).toEqual(["invalid", "invalid", "invalid", "invalid", "invalid", "rate_limited"]);
  // Even the right password waits now, on either replica; another address is not throttled.
  const right = await logIn(a, "ola", PASSWORDS.ola, "10.7.7.7");
  expect(String(right.headers.location)).toContain("error=rate_limited");
  expect(String((await logIn(b, "ola", PASSWORDS.ola, "10.7.7.8")).headers.location)).not.toContain("error=");
});

/** An open run (no worker takes it) and the history cursor after its last event. */
async function openRun(prefix: string): Promise<{ workflowId: string; runId: string; lastSequence: number }> {
  const workflowId = `${prefix}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;
  const runId = await startRun("ReplicaIdle", workflowId, []);
  const page = await dwGet<{ events: { sequence: number }[] }>(
    `/workflows/${workflowId}/runs/${runId}/history?page_size=1000`,
  );
  return { workflowId, runId, lastSequence: page.events.at(-1)?.sequence ?? 0 };
}

test("one person's reads in flight are bounded across both replicas together", async () => {
  test.setTimeout(90_000);
  const cookie = cookieOf(await logIn(a, "ada"));
  const headers = { cookie, "x-namespace": "default" };
  const run = await openRun("replica-held-read");
  const token = Buffer.from(String(run.lastSequence)).toString("base64");
  // A history long-poll after the last event: the server holds it (up to 30 s), and with it one of
  // the person's 2 read places (BREAKWATER_READS_PER_PERSON) — one on each replica.
  const path = `/api/dw/workflows/${run.workflowId}/runs/${run.runId}/history?wait_new_event=1&next_page_token=${encodeURIComponent(token)}`;
  const onA = hold(`${a.baseUrl}${path}`, headers);
  const onB = hold(`${b.baseUrl}${path}`, headers);
  const placesKey = "bw:places:person:reads:user:ada";
  await waitFor("two read places held in Redis", async () => redisCli(redis, "ZCARD", placesKey) === "2", 15_000);
  for (const app of [a, b]) {
    const third = await send(`${app.baseUrl}/api/dw/cluster/info`, { headers });
    expect(third.status, app.baseUrl).toBe(429);
    expect(JSON.parse(third.body)).toMatchObject({ reason: "too_many_in_flight" });
  }
  // Another person is not affected.
  const vic = cookieOf(await logIn(b, "vic"));
  expect((await send(`${a.baseUrl}/api/dw/cluster/info`, { headers: { cookie: vic } })).status).toBe(200);
  // Closing the read on A frees its place for the person on B too.
  onA.close();
  await waitFor("a place free again", async () => redisCli(redis, "ZCARD", placesKey) === "1", 15_000);
  expect((await send(`${b.baseUrl}/api/dw/cluster/info`, { headers })).status).toBe(200);
  onB.close();
});

/** The run view of `run`; with `since`, a tail that may long-poll (wait=1). */
function viewPath(run: { workflowId: string; runId: string }, since?: number): string {
  const base = `/api/run-view?workflow_id=${run.workflowId}&run_id=${run.runId}`;
  return since === undefined ? base : `${base}&since=${since}&wait=1`;
}

test("the upstream long-poll cap holds for both replicas together, one long-poll per run", async () => {
  test.setTimeout(120_000);
  const cookie = cookieOf(await logIn(b, "ada"));
  const headers = { cookie, "x-namespace": "default" };
  const runs = [await openRun("replica-lp-1"), await openRun("replica-lp-2"), await openRun("replica-lp-3")];
  /** Walks the run once on `app` (so a long-poll may follow) and returns the sequence it reached. */
  const derive = async (app: ExtraConsole, run: { workflowId: string; runId: string }) => {
    const answer = await send(`${app.baseUrl}${viewPath(run)}`, { headers });
    expect(answer.status).toBe(200);
    const done = answer.body
      .split("\n")
      .filter((line) => line !== "")
      .map((line) => JSON.parse(line) as { t: string; lastSequence?: number })
      .find((line) => line.t === "done");
    expect(done?.lastSequence).toBeGreaterThan(0);
    return done?.lastSequence ?? 0;
  };
  const metaHeld = async (held: ReturnType<typeof hold>) => {
    const { status, line } = await held.first;
    expect(status).toBe(200);
    return (JSON.parse(line) as { t: string; held?: boolean }).held;
  };
  const [r1, r2, r3] = runs as [(typeof runs)[0], (typeof runs)[0], (typeof runs)[0]];
  const s1 = await derive(a, r1);
  const s2 = await derive(a, r2);
  const s3 = await derive(b, r3);
  const s1b = await derive(b, r1);
  const waits: ReturnType<typeof hold>[] = [];
  try {
    // A takes both places of the cap of 2 (BREAKWATER_RUN_VIEW_LONG_POLLS)...
    waits.push(hold(`${a.baseUrl}${viewPath(r1, s1)}`, headers));
    expect(await metaHeld(waits[0]!)).toBe(true);
    waits.push(hold(`${a.baseUrl}${viewPath(r2, s2)}`, headers));
    expect(await metaHeld(waits[1]!)).toBe(true);
    // ...so B holds none: its viewer is answered at once (and asks again later).
    waits.push(hold(`${b.baseUrl}${viewPath(r3, s3)}`, headers));
    expect(await metaHeld(waits[2]!)).toBe(false);
    // And a run A already long-polls is not long-polled a second time by B.
    waits.push(hold(`${b.baseUrl}${viewPath(r1, s1b)}`, headers));
    expect(await metaHeld(waits[3]!)).toBe(false);
    const stats = async (app: ExtraConsole) =>
      (JSON.parse((await send(`${app.baseUrl}/api/run-view/stats`, { headers })).body) as { upstreamLongPolls: number })
        .upstreamLongPolls;
    expect(await stats(a)).toBe(2);
    expect(await stats(b)).toBe(0);
    expect(redisCli(redis, "ZCARD", "bw:places:long-polls")).toBe("2");
  } finally {
    for (const held of waits) held.close();
  }
  // Once A's viewers leave, the places come back and B may long-poll.
  await waitFor(
    "the long-poll places free",
    async () => redisCli(redis, "ZCARD", "bw:places:long-polls") === "0",
    20_000,
  );
  const again = hold(`${b.baseUrl}${viewPath(r3, s3)}`, headers);
  try {
    expect(await metaHeld(again)).toBe(true);
  } finally {
    again.close();
  }
});

test("both replicas answer the same metrics history, sampled by one of them", async () => {
  test.setTimeout(90_000);
  const cookie = cookieOf(await logIn(a, "ada"));
  const headers = { cookie, "x-namespace": "default" };
  type History = { sampling: boolean; since: number | null; points: { at: number }[] };
  const history = async (app: ExtraConsole): Promise<History> => {
    const answer = await send(`${app.baseUrl}/api/metrics/samples`, { headers });
    expect(answer.status, answer.body).toBe(200);
    return JSON.parse(answer.body) as History;
  };
  const fromA = await history(a);
  const fromB = await history(b);
  expect(fromA.sampling && fromB.sampling).toBe(true);
  // B's answer holds A's point (A's viewer read): one history, not one per replica.
  expect(fromB.since).toBe(fromA.since);
  const atsB = fromB.points.map((point) => point.at);
  for (const point of fromA.points) expect(atsB).toContain(point.at);
  // Every replica runs the sampler's timer, but only the holder of the leader lock (a key with an
  // expiry) polls operator_metrics; after its first tick both replicas still answer one history.
  await waitFor("a sampler leader", async () => redisCli(redis, "GET", "bw:metrics:leader") !== "", 45_000);
  const lastA = await history(a);
  const lastB = await history(b);
  const cutoff = Math.max(...lastA.points.map((point) => point.at));
  expect(lastA.points.length).toBeGreaterThan(fromA.points.length);
  expect(lastB.points.filter((point) => point.at <= cutoff)).toEqual(lastA.points);
});
