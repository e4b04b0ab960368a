import { EventEmitter } from "node:events";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { readiness, resetReadiness } from "@/lib/server/process/readiness";
import { installLifecycle, resetLifecycle } from "@/lib/server/process/lifecycle";

/** Readiness: the server is asked at most once per cache window, with a bound, and the answer names no URL. */

const SERVER = "http://dw-internal.example:8080";

beforeAll(() => {
  process.env.DW_SERVER_URL = SERVER;
  process.env.DW_TOKEN = "readiness-secret-token";
  process.env.BREAKWATER_LOG_LEVEL = "silent";
});

afterEach(() => {
  resetReadiness();
  resetLifecycle();
});

function answering(status: number) {
  const calls: string[] = [];
  const fetchImpl = ((input: string | URL | Request, init?: RequestInit) => {
    calls.push(String(input));
    expect(new Headers(init?.headers).has("authorization")).toBe(false);
    return Promise.resolve(new Response("{}", { status }));
  }) as typeof fetch;
  return { calls, fetchImpl };
}

describe("readiness", () => {
  it("is ready when the server's health route answers, and asks it once per cache window", async () => {
    const { calls, fetchImpl } = answering(200);
    let now = 1_000;
    const first = await readiness({ fetchImpl, now: () => now });
    expect(first).toEqual({ ready: true, checks: { config: "ok", server: "ok", draining: false } });
    now += 1_500;
    await readiness({ fetchImpl, now: () => now });
    expect(calls).toEqual([`${SERVER}/api/health`]);
    now += 1_000;
    await readiness({ fetchImpl, now: () => now });
    expect(calls).toHaveLength(2);
  });

  it("is not ready when the server answers unhealthy, does not answer in time, or cannot be reached", async () => {
    expect((await readiness({ fetchImpl: answering(503).fetchImpl })).checks.server).toBe("unhealthy");
    resetReadiness();
    const never = ((_: unknown, init?: RequestInit) =>
      new Promise((_resolve, reject) =>
        init?.signal?.addEventListener("abort", () => reject(init.signal?.reason as Error)),
      )) as typeof fetch;
    const late = await readiness({ fetchImpl: never, timeoutMs: 30 });
    expect(late).toMatchObject({ ready: false, checks: { server: "timeout" } });
    resetReadiness();
    const refused = (() => Promise.reject(new TypeError("fetch failed"))) as typeof fetch;
    const gone = await readiness({ fetchImpl: refused });
    expect(gone).toMatchObject({ ready: false, checks: { server: "unreachable" } });
    expect(JSON.stringify(gone)).not.toContain("dw-internal");
    expect(JSON.stringify(gone)).not.toContain("secret");
  });

  it("is not ready once the console drains", async () => {
    const signals = new EventEmitter();
    installLifecycle({ routeOf: () => "other", graceMs: 1_000, signals, exit: () => undefined, log: () => undefined });
    signals.emit("SIGTERM", "SIGTERM");
    const answer = await readiness({ fetchImpl: answering(200).fetchImpl });
    expect(answer).toEqual({ ready: false, checks: { config: "ok", server: "ok", draining: true } });
  });
});
