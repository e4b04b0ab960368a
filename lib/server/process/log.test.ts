import { createServer } from "node:http";
import type { IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger, humanLine, logFormat, loggedFetch, OUTAGE_SUMMARY_MS } from "@/lib/server/process/log";

/** Real HTTP on 127.0.0.1 and the real pino logger writing into a captured stream. */

const TOKEN = "bw-log-canary-token-7f3a";
let server: ReturnType<typeof createServer>;
let baseUrl = "";
const seen: IncomingHttpHeaders[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push(req.headers);
    res.statusCode = req.url?.startsWith("/api/broken") ? 503 : 200;
    res.setHeader("set-cookie", `bw_session=${TOKEN}`);
    res.end(JSON.stringify({ echoed: TOKEN }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

function capture(): { lines: () => Record<string, unknown>[]; raw: () => string; stream: Writable } {
  let text = "";
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      text += chunk.toString();
      done();
    },
  });
  return {
    stream,
    raw: () => text,
    lines: () =>
      text
        .trim()
        .split("\n")
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}

describe("loggedFetch", () => {
  it("sends a fresh X-Request-Id per call and logs method, path, status and duration", async () => {
    const out = capture();
    const fetchLogged = loggedFetch(createLogger(out.stream, "debug"));
    await fetchLogged(`${baseUrl}/api/workflows?query=secret-search`, {
      headers: { Authorization: `Bearer ${TOKEN}` },
    });
    await fetchLogged(`${baseUrl}/api/broken`, { method: "POST", body: JSON.stringify({ payload: TOKEN }) });
    const [first, second] = out.lines();
    expect(first).toMatchObject({ msg: "dw call", method: "GET", path: "/api/workflows", status: 200, level: 20 });
    expect(typeof first!.durationMs).toBe("number");
    expect(second).toMatchObject({ method: "POST", path: "/api/broken", status: 503, level: 40 });
    const ids = seen.slice(-2).map((headers) => headers["x-request-id"]);
    expect(ids).toEqual([first!.requestId, second!.requestId]);
    expect(ids[0]).not.toEqual(ids[1]);
    // The bearer token still reached the server: logging does not strip what the call needs.
    expect(seen.at(-2)?.authorization).toBe(`Bearer ${TOKEN}`);
  });

  it("never writes the token, the cookie, the payload or the query into the log", async () => {
    const out = capture();
    const logger = createLogger(out.stream, "debug");
    const fetchLogged = loggedFetch(logger);
    await fetchLogged(`${baseUrl}/api/workflows/x/signal/go?token=${TOKEN}`, {
      method: "POST",
      headers: { Authorization: `Bearer ${TOKEN}`, Cookie: `bw_session=${TOKEN}` },
      body: TOKEN,
    });
    await expect(
      fetchLogged("http://127.0.0.1:9/api/health", { headers: { Authorization: `Bearer ${TOKEN}` } }),
    ).rejects.toThrow();
    // The redact list covers fields someone might log by hand later.
    logger.info(
      { headers: { authorization: `Bearer ${TOKEN}`, cookie: TOKEN }, token: TOKEN, request: { password: TOKEN } },
      "hand-written",
    );
    expect(out.lines()).toHaveLength(3);
    expect(out.lines()[1]).toMatchObject({ msg: "dw call failed", status: null });
    expect(out.raw()).not.toContain(TOKEN);
    expect(out.raw()).toContain("/api/workflows/x/signal/go");
  });
});

describe("the default log", () => {
  it("is quiet at the info level: a working call writes nothing, a 5xx and a failed call one warning each", async () => {
    const out = capture();
    const fetchLogged = loggedFetch(createLogger(out.stream, "info"));
    await fetchLogged(`${baseUrl}/api/workflows`);
    await fetchLogged(`${baseUrl}/api/health`);
    expect(out.raw()).toBe("");
    await fetchLogged(`${baseUrl}/api/broken`);
    await expect(fetchLogged("http://127.0.0.1:9/api/health")).rejects.toThrow();
    expect(out.lines().map((line) => [line.level, line.msg, line.path])).toEqual([
      [40, "dw call", "/api/broken"],
      [40, "dw call failed", "/api/health"],
    ]);
  });

  it("while the server stays down: one warning, a summary a minute, one line when it answers again", async () => {
    const out = capture();
    let now = 0;
    const fetchLogged = loggedFetch(createLogger(out.stream, "info"), undefined, () => now);
    for (let i = 0; i < 5; i++) {
      now += 1_000;
      await expect(fetchLogged("http://127.0.0.1:9/api/health")).rejects.toThrow();
    }
    expect(out.lines().map((line) => line.msg)).toEqual(["dw call failed"]);
    now += OUTAGE_SUMMARY_MS;
    await expect(fetchLogged("http://127.0.0.1:9/api/workflows")).rejects.toThrow();
    now += 5_000;
    await fetchLogged(`${baseUrl}/api/health`);
    await fetchLogged(`${baseUrl}/api/health`);
    expect(
      out.lines().map((line) => [line.level, line.msg, line.failedCalls, line.failingForS, line.failedForS]),
    ).toEqual([
      [40, "dw call failed", undefined, undefined, undefined],
      [40, "dw calls still failing", 5, 64, undefined],
      [30, "dw server answering again", undefined, undefined, 69],
    ]);
  });

  it("does not warn about a call its caller abandoned, but does about one the server let time out", async () => {
    const out = capture();
    const fetchLogged = loggedFetch(createLogger(out.stream, "info"));
    const left = new AbortController();
    left.abort(new DOMException("the page left", "AbortError"));
    await expect(fetchLogged(`${baseUrl}/api/workflows`, { signal: left.signal })).rejects.toThrow();
    expect(out.raw()).toBe("");
    const timedOut = new AbortController();
    timedOut.abort(new DOMException("no answer in time", "TimeoutError"));
    await expect(fetchLogged(`${baseUrl}/api/workflows`, { signal: timedOut.signal })).rejects.toThrow();
    expect(out.lines().map((line) => [line.level, line.msg])).toEqual([[40, "dw call failed"]]);
  });

  it("writes one readable line per entry, not JSON, with the redact list still applied", async () => {
    const out = capture();
    const logger = createLogger(out.stream, "info", "human");
    await expect(
      loggedFetch(logger)("http://127.0.0.1:9/api/health", { headers: { Authorization: `Bearer ${TOKEN}` } }),
    ).rejects.toThrow();
    logger.warn({ token: TOKEN, user: "ada lovelace" }, "login throttled");
    logger.error({ err: new Error("users file unreadable") }, "sign-in failed");
    const lines = out.raw().trimEnd().split("\n");
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(
      /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d WARN  dw call failed requestId=[\w-]+ method=GET path=\/api\/health status=null durationMs=[\d.]+ failure=\S+$/,
    );
    expect(lines[1]).toMatch(/ WARN  login throttled token=\[redacted\] user="ada lovelace"$/);
    expect(lines[2]).toMatch(/ ERROR sign-in failed err="users file unreadable"$/);
    expect(out.raw()).not.toContain(TOKEN);
  });

  it("is readable unless BREAKWATER_LOG_FORMAT asks for JSON; a line that is not pino's passes through", () => {
    expect(logFormat(undefined)).toBe("human");
    expect(logFormat("human")).toBe("human");
    expect(logFormat(" JSON ")).toBe("json");
    expect(humanLine("plain text")).toBe("plain text\n");
  });
});
