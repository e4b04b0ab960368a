import { createHash } from "node:crypto";
import { createServer } from "node:http";
import type { Server, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Writable } from "node:stream";
import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedLongRun } from "@/bench/support/history-seed";
import type { SeededRun } from "@/bench/support/history-seed";
import { createLogger } from "@/lib/server/process/log";
import { parseConfig } from "@/lib/server/process/config";
import type { ConsoleConfig } from "@/lib/server/process/config";
import { startExportStream } from "@/lib/server/proxy/export-stream";
import { proxyGet } from "@/lib/server/proxy/read-proxy";
import { FakeClock } from "@/server/clock";
import { startEmbeddedServer, tokenAuth } from "@/server/http/test-support";
import type { EmbeddedServer } from "@/server/http/test-support";
import { canonicalJson } from "@/server/read/canonical-json";

/**
 * The export relay against the real embedded server (SQLite file in a temp dir, HTTP on 127.0.0.1):
 * the bytes the browser gets are the server's, still gzip-compressed, and decompress to exactly the
 * bundle a direct read gets (its integrity checksum verifies); the size limit, the client leaving
 * and a server that is down. A loopback stand-in plays the servers the embedded one cannot be (one
 * that sends Content-Length, one that never stops sending).
 */

const TOKEN = "adm-token";
let server: EmbeddedServer;
let dwUrl: string;
let run: SeededRun;
let config: ConsoleConfig;

beforeAll(async () => {
  server = await startEmbeddedServer({
    // A clock that stands still: the bundle's `exported_at` is the same on every read, so two reads are byte-identical.
    clock: new FakeClock(Date.now()),
    auth: tokenAuth({ DW_ADMIN_TOKEN: TOKEN }),
    seed: (db) => {
      run = seedLongRun(db, "export-stream-run", 2_000);
    },
  });
  dwUrl = server.url;
  config = parseConfig({ DW_SERVER_URL: dwUrl, DW_TOKEN: TOKEN });
});

afterAll(() => server.close());

function exportPath(workflowId: string, runId: string): string {
  return `/api/workflows/${encodeURIComponent(workflowId)}/runs/${encodeURIComponent(runId)}/history/export`;
}

/** The bundle as a client reading the server directly gets it (fetch decodes the gzip). */
async function directExport(): Promise<string> {
  const response = await fetch(`${dwUrl}${exportPath(run.workflowId, run.runId)}`, {
    headers: {
      authorization: `Bearer ${TOKEN}`,
      "x-namespace": "default",
      "x-durable-workflow-control-plane-version": "2",
    },
  });
  expect(response.status).toBe(200);
  return response.text();
}

const sha256 = (bytes: Buffer | string) => createHash("sha256").update(bytes).digest("hex");

function logSink() {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split("\n"))
        if (line) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { lines, logger: createLogger(sink, "info") };
}

function start(overrides: Partial<ConsoleConfig> = {}, extra: Partial<Parameters<typeof startExportStream>[1]> = {}) {
  return startExportStream(
    { ...config, ...overrides },
    {
      workflowId: run.workflowId,
      runId: run.runId,
      namespace: "default",
      token: TOKEN,
      acceptEncoding: "gzip, deflate, br",
      ...extra,
    },
  );
}

describe("export relay against the embedded server", () => {
  it("relays the server's gzip bytes untouched: Content-Encoding kept, the same bundle, a valid checksum", async () => {
    const started = await start();
    if (!started.ok) throw new Error(`not streamed: ${JSON.stringify(started.failure)}`);
    expect(started.response.status).toBe(200);
    expect(started.response.headers.get("content-encoding")).toBe("gzip");
    expect(started.response.headers.get("content-type")).toMatch(/^application\/json/);
    // A Response built in-process is not decoded on read: these are the bytes the browser receives.
    const wire = Buffer.from(await started.response.arrayBuffer());
    expect(wire.subarray(0, 2)).toEqual(Buffer.from([0x1f, 0x8b]));
    const text = gunzipSync(wire).toString("utf8");
    const direct = await directExport();
    expect(sha256(text)).toBe(sha256(direct));
    expect(text.length).toBeGreaterThan(500_000);
    const { integrity, ...rest } = JSON.parse(text) as { integrity: { checksum: string } };
    expect(integrity.checksum).toBe(sha256(canonicalJson(rest)));
  });

  it("asks for identity when the client cannot decode gzip, and relays that unchanged too", async () => {
    const started = await start({}, { acceptEncoding: null });
    if (!started.ok) throw new Error("not streamed");
    expect(started.response.headers.get("content-encoding")).toBeNull();
    expect(sha256(Buffer.from(await started.response.arrayBuffer()))).toBe(sha256(await directExport()));
  });

  it("aborts mid-stream past the size limit: the download fails (no short file) and the log says why", async () => {
    const { lines, logger } = logSink();
    const started = await start({ exportMaxBytes: 16 * 1024 }, { logger });
    if (!started.ok) throw new Error("not streamed");
    await expect(started.response.arrayBuffer()).rejects.toThrow(/larger than the console's limit of/);
    const aborted = lines.find((line) => line.msg === "export aborted: past the size limit");
    expect(aborted).toMatchObject({ limitBytes: 16 * 1024, path: exportPath(run.workflowId, run.runId) });
    expect(Number(aborted?.bytes)).toBeGreaterThan(16 * 1024);
    // Logged like every other call: one request id per call.
    expect(lines.find((line) => line.msg === "dw call")).toMatchObject({ status: 200, requestId: aborted?.requestId });
  });

  it("answers an unknown run with the server's 404 and sends nothing", async () => {
    const started = await start({}, { runId: "no-such-run" });
    expect(started.ok).toBe(false);
    if (started.ok) return;
    expect(started.failure).toMatchObject({ status: 404, reason: "run_not_found", message: "Workflow run not found." });
    expect(JSON.parse(started.failure.upstream?.body ?? "{}")).toMatchObject({ reason: "run_not_found" });
  });

  it("sends the person's token: a wrong one gets the server's 401", async () => {
    const started = await start({}, { token: "wrong" });
    expect(started.ok ? 200 : started.failure.status).toBe(401);
  });

  it("answers 502 when the server is down", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const started = await start({ serverUrl: `http://127.0.0.1:${port}`, serverHost: `127.0.0.1:${port}` });
    expect(started.ok ? null : started.failure).toMatchObject({ status: 502, reason: "server_unavailable" });
  });

  it("relays the read proxy's export the same way: not parsed, gzip kept, same bytes", async () => {
    const response = await proxyGet(config, {
      segments: ["workflows", run.workflowId, "runs", run.runId, "history", "export"],
      token: TOKEN,
      search: "",
      namespace: "default",
      acceptEncoding: "gzip",
    });
    expect(response.headers.get("content-encoding")).toBe("gzip");
    const text = gunzipSync(Buffer.from(await response.arrayBuffer())).toString("utf8");
    expect(sha256(text)).toBe(sha256(await directExport()));
  });
});

describe("export relay against a stand-in server", () => {
  let stand: Server;
  let standUrl = "";
  let onRequest: (res: ServerResponse, closed: Promise<void>) => void = () => undefined;

  beforeAll(async () => {
    stand = createServer((req, res) => {
      const closed = new Promise<void>((resolve) => res.once("close", () => resolve()));
      onRequest(res, closed);
    });
    await new Promise<void>((resolve) => stand.listen(0, "127.0.0.1", resolve));
    standUrl = `http://127.0.0.1:${(stand.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    stand.closeAllConnections();
    await new Promise((resolve) => stand.close(resolve));
  });

  it("refuses before streaming when Content-Length is over the limit, and drops the upstream request", async () => {
    let upstreamClosed: Promise<void> = Promise.resolve();
    onRequest = (res, closed) => {
      upstreamClosed = closed;
      res.writeHead(200, { "content-type": "application/json", "content-length": String(5 * 1024 * 1024) });
      res.write("{");
    };
    const started = await start({ serverUrl: standUrl, exportMaxBytes: 1024 * 1024 });
    expect(started.ok ? null : started.failure).toMatchObject({ status: 413, reason: "export_too_large" });
    expect(started.ok ? "" : started.failure.message).toContain("5 MB, more than the console relays (1 MB");
    await upstreamClosed;
  });

  it("aborts the upstream request when the client leaves mid-download", async () => {
    let upstreamClosed: Promise<void> | null = null;
    const chunk = Buffer.alloc(64 * 1024, "x");
    onRequest = (res, closed) => {
      upstreamClosed = closed;
      res.writeHead(200, { "content-type": "application/json" });
      // Never ends on its own: only the console dropping the request stops it.
      const pump = () => {
        while (!res.destroyed && res.write(chunk));
        if (!res.destroyed) res.once("drain", pump);
      };
      pump();
    };
    const client = new AbortController();
    const started = await start({ serverUrl: standUrl }, { signal: client.signal });
    if (!started.ok) throw new Error("not streamed");
    const reader = started.response.body!.getReader();
    expect((await reader.read()).done).toBe(false);
    client.abort();
    await upstreamClosed;
    await expect(reader.read()).rejects.toThrow();
  });

  it("also drops the upstream request when the response body is cancelled (how Next.js says the client left)", async () => {
    let upstreamClosed: Promise<void> | null = null;
    onRequest = (res, closed) => {
      upstreamClosed = closed;
      res.writeHead(200, { "content-type": "application/json" });
      res.write(Buffer.alloc(1024, "y"));
    };
    const started = await start({ serverUrl: standUrl });
    if (!started.ok) throw new Error("not streamed");
    const reader = started.response.body!.getReader();
    expect((await reader.read()).done).toBe(false);
    await reader.cancel();
    await upstreamClosed;
  });
});
