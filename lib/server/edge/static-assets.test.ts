import { mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { createServer, request } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compressStatic } from "@/scripts/compress-static";
import { SECURITY_HEADERS } from "@/lib/http/security-headers";
import { assetPath, createAssetServer, pickEncoding } from "./static-assets";
import type { AssetServer } from "./static-assets";

/**
 * A build folder written here, compressed by the build step, and a real HTTP server that asks the
 * asset server first and otherwise answers 299 "next" (standing for Next.js).
 */

const NEXT = 299;
let dist = "";
let server: ReturnType<typeof createServer>;
let assets: AssetServer;
let port = 0;

const script = `export const rows = [${Array.from({ length: 3000 }, (_, i) => `"row ${i}"`).join(",")}];\n`;
const style = `.a{color:red}\n`.repeat(2000);

function write(path: string, body: string): void {
  const file = join(dist, "static", path);
  mkdirSync(join(file, ".."), { recursive: true });
  writeFileSync(file, body);
}

beforeAll(async () => {
  dist = mkdtempSync(join(tmpdir(), "bw-assets-"));
  write("chunks/app.js", script);
  write("chunks/app.css", style);
  write("chunks/stale.js", "old");
  write("media/icon.svg", "<svg/>");
  await compressStatic(dist);
  // Rebuilt after its copies were made (a build over an old folder): its copies are not trusted.
  write("chunks/stale.js", "new");
  const later = new Date(Date.now() + 60_000);
  utimesSync(join(dist, "static/chunks/stale.js"), later, later);
  write("chunks/bare.js", "no copies");
  assets = createAssetServer(join(dist, "static"));
  server = createServer((req, res) => {
    if (assets.serve(req, res)) return;
    res.writeHead(NEXT).end("next");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  rmSync(dist, { recursive: true, force: true });
});

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

function ask(path: string, headers: Record<string, string> = {}, method = "GET"): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path, method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on("error", reject);
    req.end();
  });
}

describe("compressed script and style files", () => {
  it("answers for the files with fresh copies only", () => {
    expect(assets.files).toBe(2);
  });

  it("sends brotli to a browser, with Next's caching and the console's security headers", async () => {
    const res = await ask("/_next/static/chunks/app.js", { "accept-encoding": "gzip, deflate, br, zstd" });
    expect(res.status).toBe(200);
    expect(res.headers["content-encoding"]).toBe("br");
    expect(res.headers["content-type"]).toBe("application/javascript; charset=UTF-8");
    expect(res.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
    expect(res.headers.vary).toBe("Accept-Encoding");
    expect(Number(res.headers["content-length"])).toBe(res.body.byteLength);
    expect(res.body.byteLength).toBeLessThan(script.length / 5);
    expect(brotliDecompressSync(res.body).toString()).toBe(script);
    for (const { key, value } of SECURITY_HEADERS) expect(res.headers[key.toLowerCase()]).toBe(value);
  });

  it("sends gzip to a client without brotli, and the style type for CSS", async () => {
    const res = await ask("/_next/static/chunks/app.css", { "accept-encoding": "gzip;q=0.8, br;q=0" });
    expect(res.headers["content-encoding"]).toBe("gzip");
    expect(res.headers["content-type"]).toBe("text/css; charset=UTF-8");
    expect(gunzipSync(res.body).toString()).toBe(style);
  });

  it("answers a matching If-None-Match with 304 and no body, and a stale one in full", async () => {
    const first = await ask("/_next/static/chunks/app.js", { "accept-encoding": "br" });
    const etag = String(first.headers.etag);
    expect(etag).toMatch(/^W\/"[\w-]{27}"$/);
    const again = await ask("/_next/static/chunks/app.js", { "accept-encoding": "br", "if-none-match": etag });
    expect(again.status).toBe(304);
    expect(again.body.byteLength).toBe(0);
    const other = await ask("/_next/static/chunks/app.js", { "accept-encoding": "br", "if-none-match": 'W/"other"' });
    expect(other.status).toBe(200);
  });

  it.each([
    ["no Accept-Encoding", "/_next/static/chunks/app.js", {}, "GET"],
    ["identity only", "/_next/static/chunks/app.js", { "accept-encoding": "identity" }, "GET"],
    ["HEAD", "/_next/static/chunks/app.js", { "accept-encoding": "br" }, "HEAD"],
    ["POST", "/_next/static/chunks/app.js", { "accept-encoding": "br" }, "POST"],
    ["a range", "/_next/static/chunks/app.js", { "accept-encoding": "br", range: "bytes=0-10" }, "GET"],
    ["a date condition", "/_next/static/chunks/app.js", { "accept-encoding": "br", "if-modified-since": "x" }, "GET"],
    ["a query", "/_next/static/chunks/app.js?v=1", { "accept-encoding": "br" }, "GET"],
    ["a file without copies", "/_next/static/chunks/bare.js", { "accept-encoding": "br" }, "GET"],
    ["a file newer than its copies", "/_next/static/chunks/stale.js", { "accept-encoding": "br" }, "GET"],
    ["another type", "/_next/static/media/icon.svg", { "accept-encoding": "br" }, "GET"],
    ["a copy itself", "/_next/static/chunks/app.js.br", { "accept-encoding": "br" }, "GET"],
    ["a missing file", "/_next/static/chunks/none.js", { "accept-encoding": "br" }, "GET"],
    ["a path that is not in its plain form", "/_next/static/chunks/./app.js", { "accept-encoding": "br" }, "GET"],
    ["a climb out", "/_next/static/../static/chunks/app.js", { "accept-encoding": "br" }, "GET"],
    ["an encoded climb", "/_next/static/%2e%2e/static/chunks/app.js", { "accept-encoding": "br" }, "GET"],
    ["a bad escape", "/_next/static/chunks/%E0%A4%A.js", { "accept-encoding": "br" }, "GET"],
    ["another path", "/chunks/app.js", { "accept-encoding": "br" }, "GET"],
  ])("leaves %s to Next.js", async (_what, path, headers, method) => {
    expect((await ask(path, headers, method)).status).toBe(NEXT);
  });

  it("keeps the build's own files as they were", () => {
    expect(readFileSync(join(dist, "static/chunks/app.js"), "utf8")).toBe(script);
  });
});

describe("pickEncoding", () => {
  it.each([
    ["gzip, deflate, br, zstd", "br"],
    ["gzip", "gzip"],
    ["br;q=0, gzip;q=0.5", "gzip"],
    ["*", "br"],
    ["*;q=0, gzip", "gzip"],
    ["identity", null],
    ["", null],
    [undefined, null],
  ])("%s → %s", (header, encoding) => {
    expect(pickEncoding(header)).toBe(encoding);
  });
});

describe("assetPath", () => {
  it("names files inside the static folder only", () => {
    expect(assetPath("/b/static", "/_next/static/chunks/x.js")).toEqual({
      file: "/b/static/chunks/x.js",
      type: "application/javascript; charset=UTF-8",
    });
    expect(assetPath("/b/static", "/_next/static/chunks/../../x.js")).toBeNull();
    expect(assetPath("/b/static", "/_next/static//etc/x.js")).toBeNull();
    expect(assetPath("/b/static", "/_next/static/chunks/x%00.js")).toBeNull();
    expect(assetPath("/b/static", "/_next/static/chunks%5C..%5Cx.js")).toBeNull();
  });
});
