import { createServer } from "node:http";
import type { ServerResponse } from "node:http";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ReadableStream as NodeReadableStream } from "node:stream/web";
import { SCHEMA_DECODERS } from "../../lib/dw/client";
import { parseConfig } from "../../lib/server/process/config";
import { startExportStream } from "../../lib/server/proxy/export-stream";

/**
 * The console's export relay in a process of its own, so its memory can be read while one export
 * streams (bench/export-download.ts). `node --expose-gc --conditions=react-server --import tsx`.
 *
 * - `GET /relay/stream/{wf}/{run}`: lib/server/proxy/export-stream.ts, piped to the socket the way Next.js
 *   pipes a route's web stream (pulled, with back-pressure).
 * - `GET /relay/buffered/{wf}/{run}`: what the read proxy did before issue 14 (fetch, `text()`,
 *   JSON.parse, the zod export schema, JSON.stringify), for comparison.
 * - `GET /mem/start` (GC, baseline, sample every 10 ms) and `GET /mem/stop` (peak deltas, bytes).
 */

const PORT = Number(process.env.RELAY_PORT ?? 18341);
const config = parseConfig({ DW_SERVER_URL: process.env.DW_SERVER_URL ?? "http://127.0.0.1:18340" });
const gc = (globalThis as { gc?: () => void }).gc ?? (() => undefined);

let baseline = process.memoryUsage();
let peak = { rss: 0, heapUsed: 0, external: 0 };
let sampler: NodeJS.Timeout | null = null;

function sample(): void {
  const now = process.memoryUsage();
  peak = {
    rss: Math.max(peak.rss, now.rss - baseline.rss),
    heapUsed: Math.max(peak.heapUsed, now.heapUsed - baseline.heapUsed),
    external: Math.max(peak.external, now.external + now.arrayBuffers - baseline.external - baseline.arrayBuffers),
  };
}

async function streamed(res: ServerResponse, workflowId: string, runId: string, gzip: boolean): Promise<void> {
  const started = await startExportStream(config, {
    workflowId,
    runId,
    namespace: "default",
    token: null,
    acceptEncoding: gzip ? "gzip" : null,
  });
  if (!started.ok) {
    res.writeHead(started.failure.status).end(started.failure.message);
    return;
  }
  const { response } = started;
  res.writeHead(200, Object.fromEntries(response.headers.entries()));
  await pipeline(Readable.fromWeb(response.body as NodeReadableStream<Uint8Array>), res);
}

async function buffered(res: ServerResponse, workflowId: string, runId: string): Promise<void> {
  const url = `${config.serverUrl}/api/workflows/${encodeURIComponent(workflowId)}/runs/${encodeURIComponent(runId)}/history/export`;
  const upstream = await fetch(url, {
    headers: { "x-namespace": "default", "x-durable-workflow-control-plane-version": "2" },
  });
  const text = await upstream.text();
  const decoded = SCHEMA_DECODERS.historyExport(JSON.parse(text));
  if (!decoded.ok) throw new Error(decoded.message);
  const body = JSON.stringify(decoded.value);
  res.writeHead(200, { "content-type": "application/json" });
  res.end(body);
}

createServer((req, res) => {
  const [, head, mode, workflowId = "", runId = ""] = (req.url ?? "").split("/").map(decodeURIComponent);
  if (head === "mem" && mode === "start") {
    gc();
    baseline = process.memoryUsage();
    peak = { rss: 0, heapUsed: 0, external: 0 };
    sampler = setInterval(sample, 10);
    res.end("{}");
    return;
  }
  if (head === "mem" && mode === "stop") {
    if (sampler) clearInterval(sampler);
    sample();
    res.end(JSON.stringify({ peak, rssNow: process.memoryUsage().rss }));
    return;
  }
  const gzip = String(req.headers["accept-encoding"] ?? "").includes("gzip");
  const work =
    mode === "stream"
      ? streamed(res, workflowId, runId, gzip)
      : mode === "buffered"
        ? buffered(res, workflowId, runId)
        : null;
  if (work === null) {
    res.writeHead(404).end();
    return;
  }
  work.catch((error: unknown) => {
    console.error(error);
    res.destroy();
  });
}).listen(PORT, "127.0.0.1", () => console.log(`relay host listening on ${PORT}`));
