import { readdir, readFile, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { brotliCompress, constants, gzip } from "node:zlib";
import { distDir } from "../lib/http/dist-dir";
import { COPIED_TYPES, COPY_SUFFIX } from "../lib/http/static-copies";

/**
 * After `next build`: a brotli (best quality) and a gzip (level 9) copy beside every script and
 * style file of the build, which the console answers from instead of compressing each file again
 * on every request (lib/server/edge/static-assets.ts, decision 0037). `npm run build` runs it, and so do
 * the builds of `npm start`, `npm test` and the bench. Usage: `node --import tsx
 * scripts/compress-static.ts [buildDir]` (default BREAKWATER_DIST_DIR or .next).
 */

const brotli = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const nested = await Promise.all(
    entries.map((entry) => {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) return filesUnder(path);
      return Promise.resolve(entry.isFile() && Object.keys(COPIED_TYPES).some((t) => path.endsWith(t)) ? [path] : []);
    }),
  );
  return nested.flat();
}

async function compressOne(file: string): Promise<{ raw: number; br: number }> {
  const raw = await readFile(file);
  const params = {
    [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
    [constants.BROTLI_PARAM_SIZE_HINT]: raw.byteLength,
  };
  const [br, gz] = await Promise.all([
    brotli(raw, { params }),
    gzipAsync(raw, { level: constants.Z_BEST_COMPRESSION }),
  ]);
  // The raw file first, the copies after it: lib/server/edge/static-assets.ts takes copies no older than it.
  await writeFile(file + COPY_SUFFIX.gzip, gz);
  await writeFile(file + COPY_SUFFIX.br, br);
  return { raw: raw.byteLength, br: br.byteLength };
}

/** Writes the copies for `<buildDir>/static`; returns how many files and bytes. */
export async function compressStatic(buildDir: string): Promise<{ files: number; raw: number; br: number }> {
  const files = await filesUnder(join(buildDir, "static"));
  const total = { files: files.length, raw: 0, br: 0 };
  // Two at a time: the thread pool does the work, and the machines this runs on have two cores.
  for (let i = 0; i < files.length; i += 2) {
    for (const r of await Promise.all(files.slice(i, i + 2).map(compressOne))) {
      total.raw += r.raw;
      total.br += r.br;
    }
  }
  return total;
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(__filename)) {
  const dist = resolve(process.argv[2] ?? distDir());
  const t0 = Date.now();
  compressStatic(dist).then(
    ({ files, raw, br }) =>
      console.log(
        `compressed ${files} script and style files of ${dist}: ${(raw / 1024).toFixed(0)} KB → ${(br / 1024).toFixed(0)} KB brotli, in ${((Date.now() - t0) / 1000).toFixed(1)} s`,
      ),
    (error: unknown) => {
      console.error(`compress-static: ${error instanceof Error ? error.message : String(error)}`);
      process.exit(1);
    },
  );
}
