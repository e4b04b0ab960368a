import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { runInNewContext } from "node:vm";
import { gzipSync } from "node:zlib";
import { z } from "zod";
import { distDir } from "../lib/http/dist-dir";
import { ensureBuild, figure, ROOT } from "./support/report";

/**
 * First-load JavaScript per App Router page, gzip, from the production build (`next build` is run
 * when .next/BUILD_ID is missing). A page's first load is the root main files of
 * .next/build-manifest.json (framework, runtime) plus every chunk its
 * .next/server/app/<route>/page_client-reference-manifest.js lists under entryJSFiles (the root
 * layout, error/not-found boundaries and the page itself), each chunk counted once. Polyfill
 * files are left out: they are `nomodule` and modern browsers never fetch them.
 *
 * Each chunk is gzipped with node:zlib at level 6 (what CDNs and nginx default to; the budget is
 * held against it) and at level 9 (the best case) for reference. Beside them, what the console
 * actually sends Chromium: the brotli copies `npm run build` writes (decision 0037).
 */

const BUDGET_KB = 180;
const NEXT = join(ROOT, distDir());

const buildManifest = z.object({ rootMainFiles: z.array(z.string()), polyfillFiles: z.array(z.string()).optional() });
const clientManifest = z.record(z.string(), z.object({ entryJSFiles: z.record(z.string(), z.array(z.string())) }));

function findManifests(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...findManifests(p));
    else if (entry.name === "page_client-reference-manifest.js") out.push(p);
  }
  return out;
}

/** The manifest is a script assigning globalThis.__RSC_MANIFEST[route]; run it in an empty context. */
function readClientManifest(file: string): z.infer<typeof clientManifest> {
  const sandbox: { globalThis?: unknown; __RSC_MANIFEST?: unknown } = {};
  sandbox.globalThis = sandbox;
  runInNewContext(readFileSync(file, "utf8"), sandbox, { timeout: 5000 });
  return clientManifest.parse(sandbox.__RSC_MANIFEST);
}

interface ChunkSize {
  raw: number;
  gz6: number;
  gz9: number;
  /** The brotli copy the console serves (scripts/compress-static.ts, decision 0037); null without one. */
  br: number | null;
}

const sizes = new Map<string, ChunkSize>();
function chunkSize(file: string): ChunkSize {
  const cached = sizes.get(file);
  if (cached) return cached;
  const body = readFileSync(join(NEXT, file));
  const copy = join(NEXT, `${file}.br`);
  const s = {
    raw: body.length,
    gz6: gzipSync(body, { level: 6 }).length,
    gz9: gzipSync(body, { level: 9 }).length,
    br: existsSync(copy) ? statSync(copy).size : null,
  };
  sizes.set(file, s);
  return s;
}

const kb = (bytes: number): string => `${(bytes / 1024).toFixed(1)} KB`;

function main(): void {
  ensureBuild();
  const built = new Date(statSync(join(NEXT, "BUILD_ID")).mtimeMs).toISOString();
  const { rootMainFiles } = buildManifest.parse(JSON.parse(readFileSync(join(NEXT, "build-manifest.json"), "utf8")));
  const manifests = findManifests(join(NEXT, "server", "app"));
  if (manifests.length === 0)
    throw new Error("no page_client-reference-manifest.js under .next/server/app: unknown build layout");
  console.log(`build of ${built}; gzip level 6 (CDN default) against the budget, level 9 in brackets`);

  const rows: { route: string; files: number; raw: number; gz6: number; gz9: number; br: number | null }[] = [];
  for (const file of manifests) {
    for (const [key, entry] of Object.entries(readClientManifest(file))) {
      const route = key.replace(/\/page$/, "") || "/";
      if (route === "/_global-error") continue;
      const chunks = new Set(rootMainFiles);
      for (const list of Object.values(entry.entryJSFiles))
        for (const c of list) chunks.add(c.replace(/^\/?_next\//, ""));
      let raw = 0;
      let gz6 = 0;
      let gz9 = 0;
      let br: number | null = 0;
      for (const c of chunks) {
        const s = chunkSize(c);
        raw += s.raw;
        gz6 += s.gz6;
        gz9 += s.gz9;
        br = br === null || s.br === null ? null : br + s.br;
      }
      rows.push({ route, files: chunks.size, raw, gz6, gz9, br });
    }
  }
  rows.sort((a, b) => a.route.localeCompare(b.route));
  for (const r of rows) {
    console.log(
      `first-load JS ${r.route}: ${kb(r.gz6)} gzip (${kb(r.gz9)} at level 9), ${r.br === null ? "no brotli copies (built without npm run build)" : `${kb(r.br)} as served (brotli copies)`}, ${kb(r.raw)} raw, ${r.files} chunks`,
    );
  }
  for (const r of rows)
    figure(`first-load JS ${r.route}`, `${kb(r.gz6)} gz`, `≤ ${BUDGET_KB} KB`, r.gz6 <= BUDGET_KB * 1024);
  console.log(`(manifests read: ${manifests.map((m) => relative(NEXT, m)).length})`);
}

try {
  main();
} catch (e) {
  console.error(e);
  process.exit(1);
}
