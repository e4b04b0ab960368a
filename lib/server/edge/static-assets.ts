import "server-only";
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, statSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { join, normalize, relative, sep } from "node:path";
import { SECURITY_HEADERS } from "@/lib/http/security-headers";
import { COPIED_TYPES, COPY_SUFFIX } from "@/lib/http/static-copies";
import { BASE_PATH } from "@/lib/http/base-path";

/**
 * The build's script and style files, answered before Next.js from copies compressed at build time.
 *
 * `next start` gzips every static file again on every request, on the event loop: more console CPU
 * for the files a run page loads in a fresh browser than the page itself, and the files wait
 * behind one another and behind page renders. `npm run build` writes a brotli (best
 * quality) and a gzip copy beside each (scripts/compress-static.ts); they are read once at start-up
 * and every request is then a write of bytes already made. A file without fresh copies, and a request this does not understand (another
 * method, a range, a date-conditional, an unknown type, a path outside the folder, a client that
 * takes neither encoding), go on to Next.js: the worst case is the old behaviour. Decision 0037.
 */

/** Under the console's sub-path when it has one (lib/http/base-path.ts): Next serves its files there. */
const PREFIX = `${BASE_PATH}/_next/static/`;

interface Compressed {
  type: string;
  etag: string;
  br: Buffer;
  gzip: Buffer;
}

export interface AssetServer {
  /** Answers the request and returns true, or returns false and leaves it to Next.js. */
  serve(request: IncomingMessage, response: ServerResponse): boolean;
  /** How many files it answers for. */
  readonly files: number;
}

/** `br` when the client takes brotli, else `gzip` when it takes gzip, else null. */
export function pickEncoding(acceptEncoding: string | undefined): "br" | "gzip" | null {
  const accepted = new Map<string, number>();
  for (const part of (acceptEncoding ?? "").split(",")) {
    const [name = "", ...params] = part.trim().toLowerCase().split(";");
    const q = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
    accepted.set(name, q === undefined ? 1 : Number(q.slice(2)) || 0);
  }
  const takes = (name: string) => (accepted.get(name) ?? accepted.get("*") ?? 0) > 0;
  if (takes("br")) return "br";
  if (takes("gzip")) return "gzip";
  return null;
}

/** The file under `staticDir` a request path names, or null for anything else. */
export function assetPath(staticDir: string, url: string | undefined): { file: string; type: string } | null {
  if (!url?.startsWith(PREFIX) || url.includes("?") || url.includes("#")) return null;
  let name: string;
  try {
    name = decodeURIComponent(url.slice(PREFIX.length));
  } catch {
    return null;
  }
  if (name.includes("\0") || name.includes("\\")) return null;
  const clean = normalize(name);
  if (clean.startsWith("..") || clean.startsWith(sep) || clean !== name) return null;
  const type = COPIED_TYPES[clean.slice(clean.lastIndexOf("."))];
  return type === undefined ? null : { file: join(staticDir, clean), type };
}

/** If-None-Match against a weak ETag: the weak comparison of RFC 9110 §13.1.2 ("*" matches too). */
function matches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (ifNoneMatch === undefined) return false;
  const opaque = etag.replace(/^W\//, "");
  return ifNoneMatch.split(",").some((tag) => {
    const t = tag.trim();
    return t === "*" || t.replace(/^W\//, "") === opaque;
  });
}

/** The build's files that have both copies, each no older than its file, by absolute path. */
function readCopies(staticDir: string): Map<string, Compressed> {
  const found = new Map<string, Compressed>();
  const walk = (dir: string): void => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return; // no build (yet): everything goes to Next.js
    }
    for (const entry of entries) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile()) {
        const asset = assetPath(staticDir, PREFIX + relative(staticDir, path).split(sep).join("/"));
        const copies = asset && fresh(path);
        if (asset && copies) found.set(path, { type: asset.type, ...copies });
      }
    }
  };
  walk(staticDir);
  return found;
}

function fresh(file: string): Omit<Compressed, "type"> | null {
  try {
    const made = statSync(file).mtimeMs;
    const [brPath, gzPath] = [file + COPY_SUFFIX.br, file + COPY_SUFFIX.gzip];
    if (statSync(brPath).mtimeMs < made || statSync(gzPath).mtimeMs < made) return null;
    const br = readFileSync(brPath);
    const etag = `W/"${createHash("sha256").update(br).digest("base64url").slice(0, 27)}"`;
    return { etag, br, gzip: readFileSync(gzPath) };
  } catch {
    return null;
  }
}

/** Reads the compressed copies under `staticDir` (`<distDir>/static`) once; see the module comment. */
export function createAssetServer(staticDir: string): AssetServer {
  const ready = readCopies(staticDir);

  function serve(request: IncomingMessage, response: ServerResponse): boolean {
    if (request.method !== "GET") return false;
    const { headers } = request;
    if (headers.range !== undefined || headers["if-modified-since"] !== undefined) return false;
    const asset = assetPath(staticDir, request.url);
    const hit = asset && ready.get(asset.file);
    const encoding = pickEncoding(headers["accept-encoding"]);
    if (!hit || encoding === null) return false;
    for (const { key, value } of SECURITY_HEADERS) response.setHeader(key, value);
    response.setHeader("Cache-Control", "public, max-age=31536000, immutable");
    response.setHeader("ETag", hit.etag);
    response.setHeader("Vary", "Accept-Encoding");
    if (matches(headers["if-none-match"], hit.etag)) {
      response.writeHead(304).end();
      return true;
    }
    const body = encoding === "br" ? hit.br : hit.gzip;
    response.writeHead(200, {
      "Content-Type": hit.type,
      "Content-Encoding": encoding,
      "Content-Length": body.byteLength,
    });
    response.end(body);
    return true;
  }

  return { serve, files: ready.size };
}
