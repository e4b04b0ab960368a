import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { ConsoleConfig } from "@/lib/server/process/config";
import { parseConfig } from "@/lib/server/process/config";
import {
  ClosedRunCache,
  closedRunCache,
  closedRunKey,
  closedRunRead,
  credentialFingerprint,
} from "@/lib/server/proxy/closed-run-cache";
import { CACHE_HEADER, proxyGet } from "@/lib/server/proxy/read-proxy";
import { systemClock } from "@/server/clock";
import type { Engine } from "@/server/engine";
import { startEmbeddedServer, tokenAuth } from "@/server/http/test-support";
import type { EmbeddedServer } from "@/server/http/test-support";

/**
 * The closed-run cache in the read proxy, against the real embedded server (SQLite file, HTTP on
 * 127.0.0.1) whose requests are counted: a closed run is read from the server once, an open run
 * every time, and two tokens never share an answer.
 */

const ADMIN = "adm-token";
const OPERATOR = "op-token";
let server: EmbeddedServer;
let engine: Engine;
let config: ConsoleConfig;
const upstream: string[] = [];

function start(workflowId: string): string {
  const started = engine.startWorkflow({
    namespace: "default",
    workflow_id: workflowId,
    workflow_type: "CacheProbeWorkflow",
    task_queue: "cache",
  });
  if (started.run_id === null) throw new Error(`not started: ${started.command_status}`);
  return started.run_id;
}

function terminate(workflowId: string): void {
  engine.terminateWorkflow({ namespace: "default", workflow_id: workflowId, reason: "cache test" });
}

beforeAll(async () => {
  server = await startEmbeddedServer({
    clock: systemClock,
    auth: tokenAuth({ DW_ADMIN_TOKEN: ADMIN, DW_OPERATOR_TOKEN: OPERATOR }),
    onApp: (app) =>
      app.addHook("onRequest", async (request) => {
        upstream.push(request.url);
      }),
  });
  engine = server.engine;
  config = parseConfig({ DW_SERVER_URL: server.url });
});

afterAll(async () => {
  await server.close();
});

beforeEach(() => {
  closedRunCache().clear();
  upstream.length = 0;
});

async function read(path: string, token = ADMIN, namespace = "default") {
  const response = await proxyGet(config, { segments: path.split("/"), token, search: "", namespace });
  const body = (await response.json()) as Record<string, unknown>;
  return { status: response.status, cache: response.headers.get(CACHE_HEADER), body };
}

describe("closed-run cache in the read proxy", () => {
  it("reads a closed run's debug and describe from the server once", async () => {
    const runId = start("cache-closed");
    terminate("cache-closed");
    for (const path of [`workflows/cache-closed/runs/${runId}/debug`, `workflows/cache-closed/runs/${runId}`]) {
      const first = await read(path);
      expect(first).toMatchObject({ status: 200, cache: "miss" });
      const second = await read(path);
      expect(second).toMatchObject({ status: 200, cache: "hit" });
      expect(second.body).toEqual(first.body);
      expect(upstream.filter((url) => url === `/api/${path}`)).toHaveLength(1);
    }
    expect(closedRunCache().stats()).toMatchObject({ entries: 2, hits: 2 });
  });

  it("forgets a workflow's closed runs when a command is sent for it (archive changes describe)", async () => {
    const runId = start("cache-forget");
    terminate("cache-forget");
    const other = start("cache-kept");
    terminate("cache-kept");
    for (const path of [`workflows/cache-forget/runs/${runId}`, `workflows/cache-forget/runs/${runId}/debug`])
      await read(path);
    await read(`workflows/cache-kept/runs/${other}`);
    expect(closedRunCache().forgetWorkflow("other-namespace", "cache-forget")).toBe(0);
    expect(closedRunCache().forgetWorkflow("default", "cache-forget")).toBe(2);
    expect((await read(`workflows/cache-forget/runs/${runId}`)).cache).toBe("miss");
    expect((await read(`workflows/cache-kept/runs/${other}`)).cache).toBe("hit");
  });

  it("reads an open run every time, and caches it once it closed", async () => {
    const runId = start("cache-open");
    const path = `workflows/cache-open/runs/${runId}/debug`;
    expect((await read(path)).cache).toBe("miss");
    expect((await read(path)).cache).toBe("miss");
    expect(upstream).toHaveLength(2);
    terminate("cache-open");
    const closed = await read(path);
    expect(closed.cache).toBe("miss");
    expect((closed.body.execution as { is_terminal: boolean }).is_terminal).toBe(true);
    expect((await read(path)).cache).toBe("hit");
    expect(upstream).toHaveLength(3);
  });

  it("never serves one token's answer to another, nor one namespace's to another", async () => {
    const runId = start("cache-tokens");
    terminate("cache-tokens");
    const path = `workflows/cache-tokens/runs/${runId}/debug`;
    expect((await read(path, ADMIN)).cache).toBe("miss");
    expect((await read(path, OPERATOR)).cache).toBe("miss");
    expect((await read(path, "not-a-token")).status).toBe(401);
    expect((await read(path, OPERATOR)).cache).toBe("hit");
    expect((await read(path, ADMIN)).cache).toBe("hit");
    expect((await read(path, ADMIN, "other")).cache).toBe("miss");
    expect(upstream).toHaveLength(4);
  });

  it("leaves `workflows/{id}` (the current run moves on) and every other path uncached", () => {
    expect(closedRunRead(["workflows", "a", "runs", "r"])).toBe("describe");
    expect(closedRunRead(["workflows", "a", "runs", "r", "debug"])).toBe("debug");
    for (const path of [
      "workflows/a",
      "workflows/a/debug",
      "workflows/a/runs",
      "workflows/a/runs/r/history",
      "workers",
    ])
      expect(closedRunRead(path.split("/")), path).toBeNull();
  });
});

describe("ClosedRunCache bounds", () => {
  const answer = (size: number) => ({ status: 200, body: "x".repeat(size), headers: [] });

  it("evicts the least recently used entry past the entry bound", () => {
    const cache = new ClosedRunCache({ maxEntries: 2, maxBytes: 1_000_000, ttlMs: 60_000 });
    cache.set("a", answer(10));
    cache.set("b", answer(10));
    expect(cache.get("a")).toBeDefined(); // a is now more recent than b
    cache.set("c", answer(10));
    expect(cache.get("b")).toBeUndefined();
    expect(cache.get("a")).toBeDefined();
    expect(cache.get("c")).toBeDefined();
    expect(cache.stats().entries).toBe(2);
  });

  it("evicts by bytes, keeps its byte count exact, and refuses one answer too large to share", () => {
    const cache = new ClosedRunCache({ maxEntries: 100, maxBytes: 8_000, ttlMs: 60_000 });
    // Each entry is ~965 bytes (body, key and a fixed overhead): ten do not fit in 8,000.
    for (const key of "abcdefghij") cache.set(key, answer(900));
    const { bytes, entries } = cache.stats();
    expect(bytes).toBeLessThanOrEqual(8_000);
    expect(entries).toBe(8);
    expect(cache.get("a")).toBeUndefined();
    expect(cache.get("b")).toBeUndefined();
    expect(cache.get("j")).toBeDefined();
    cache.set("huge", answer(2_000));
    expect(cache.get("huge")).toBeUndefined();
    cache.set("j", answer(100));
    expect(cache.stats().bytes).toBe(bytes - 800);
  });

  it("evicts by bytes the least recently read, not the first stored", () => {
    const cache = new ClosedRunCache({ maxEntries: 100, maxBytes: 4_000, ttlMs: 60_000 });
    // Each entry is 465 bytes: eight fit in 4,000, a ninth pushes one out.
    for (const key of "abcdefgh") cache.set(key, answer(400));
    expect(cache.get("a")).toBeDefined(); // b is now the least recently used
    cache.set("i", answer(400));
    expect(cache.get("b")).toBeUndefined();
    for (const key of "acdefghi") expect(cache.get(key), key).toBeDefined();
  });

  it("keeps an answer of exactly an eighth of the budget, refuses one byte more and keeps what the key held", () => {
    const cache = new ClosedRunCache({ maxEntries: 10, maxBytes: 8_000, ttlMs: 60_000 });
    // 1,000 bytes in all: key "k" (1), the 64-byte overhead and one header (10 + 10).
    const sized = (bytes: number) => ({
      status: 200,
      body: "x".repeat(bytes - 85),
      headers: [["h".repeat(10), "v".repeat(10)]] as const,
    });
    cache.set("k", sized(1_000));
    expect(cache.stats()).toMatchObject({ entries: 1, bytes: 1_000 });
    cache.set("k", sized(1_001));
    expect(cache.get("k")?.body).toHaveLength(915);
    expect(cache.stats()).toMatchObject({ entries: 1, bytes: 1_000 });
  });

  it("gives the bytes back when a workflow is forgotten, an entry expires or the cache is cleared", () => {
    let now = 0;
    const cache = new ClosedRunCache({ maxEntries: 10, maxBytes: 100_000, ttlMs: 1_000 }, () => now);
    const key = (workflowId: string, run: string) =>
      closedRunKey("print", "default", ["workflows", workflowId, "runs", run], "");
    cache.set(key("w1", "r1"), answer(100));
    cache.set(key("w1", "r2"), answer(100));
    cache.set(key("w2", "r1"), answer(100));
    const kept = cache.stats().bytes / 3;
    expect(cache.forgetWorkflow("default", "w1")).toBe(2);
    expect(cache.stats()).toMatchObject({ entries: 1, bytes: kept });
    now = 1_001;
    expect(cache.get(key("w2", "r1"))).toBeUndefined();
    expect(cache.stats()).toMatchObject({ entries: 0, bytes: 0, misses: 1 });
    cache.set(key("w2", "r2"), answer(100));
    cache.clear();
    expect(cache.stats()).toMatchObject({ entries: 0, bytes: 0, hits: 0, misses: 0 });
  });

  it("forgets a workflow's expired answers too, so the count says every answer dropped", () => {
    let now = 1_000;
    const cache = new ClosedRunCache({ maxEntries: 10, maxBytes: 100_000, ttlMs: 1_000 }, () => now);
    cache.set(closedRunKey("print", "default", ["workflows", "w", "runs", "r"], ""), answer(10));
    now = 5_000; // expired, still held
    expect(cache.forgetWorkflow("default", "w")).toBe(1);
    expect(cache.stats()).toMatchObject({ entries: 0, bytes: 0 });
  });

  it("expires entries after the time bound", () => {
    let now = 0;
    const cache = new ClosedRunCache({ maxEntries: 10, maxBytes: 10_000, ttlMs: 1_000 }, () => now);
    cache.set("a", answer(10));
    now = 1_000;
    expect(cache.get("a")).toBeDefined();
    now = 1_001;
    expect(cache.get("a")).toBeUndefined();
    expect(cache.stats()).toMatchObject({ entries: 0, bytes: 0 });
  });

  it("fingerprints credentials without holding them: same token same print, another token another", () => {
    const a = credentialFingerprint({ Authorization: "Bearer one" });
    expect(credentialFingerprint({ authorization: "Bearer one" })).toBe(a);
    expect(credentialFingerprint({ Authorization: "Bearer two" })).not.toBe(a);
    expect(a).not.toContain("one");
  });
});
