/**
 * `npm run package [-- <out-dir>]`: the console as one folder, and a `.tgz` of it, that runs with
 * plain `node server.js` and no build step, no `npm install` and none of the embedded server's
 * dependencies (docs/deployment.md, decision 0059).
 *
 *  1. `next build` with `output: "standalone"` (BREAKWATER_STANDALONE=1, next.config.ts) into its own
 *     build folder (BREAKWATER_DIST_DIR, default `.next-package`), so it never replaces the `.next`
 *     that `npm start` and the tests use; BREAKWATER_BASE_PATH, when set, is built in.
 *  2. The compressed copies of its static files (scripts/compress-static.ts, decision 0037).
 *  3. Next's standalone folder (server.js and only the node_modules its output tracing found), plus
 *     the static files and public/, which Next leaves out of it.
 *  4. A check that the embedded server's modules did not come along (they are not the console's).
 *
 * The artifact's `server.js` reads PORT and HOSTNAME (Next's), and the console's own variables
 * (DW_SERVER_URL, DW_TOKEN, BREAKWATER_*; docs/configuration.md).
 */
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { normalizeBasePath } from "../lib/http/base-path";
import { compressStatic } from "./compress-static";

/** Modules only the embedded server (server/) uses: a console artifact holding one of them is a packaging bug. */
export const EMBEDDED_ONLY_MODULES = ["better-sqlite3", "fastify", "croner"] as const;

const root = join(__dirname, "..");

function run(command: string, args: string[], env: NodeJS.ProcessEnv): void {
  const result = spawnSync(command, args, { cwd: root, env, stdio: "inherit" });
  if (result.status !== 0)
    throw new Error(`${command} ${args.join(" ")} failed (exit ${result.status ?? result.signal})`);
}

export async function packageConsole(outDir: string): Promise<{ dir: string; tarball: string; seconds: number }> {
  const t0 = Date.now();
  const basePath = normalizeBasePath(process.env.BREAKWATER_BASE_PATH);
  const dist = process.env.BREAKWATER_DIST_DIR || ".next-package";
  const env = { ...process.env, BREAKWATER_STANDALONE: "1", BREAKWATER_DIST_DIR: dist, NEXT_TELEMETRY_DISABLED: "1" };
  // `next build` points tsconfig.json and next-env.d.ts at its build folder's types; this folder is not
  // the project's, so both are put back as they were.
  const kept = ["tsconfig.json", "next-env.d.ts"]
    .map((name) => join(root, name))
    .filter((file) => existsSync(file))
    .map((file) => ({ file, text: readFileSync(file, "utf8") }));
  try {
    run(process.execPath, [join(root, "node_modules", "next", "dist", "bin", "next"), "build"], env);
  } finally {
    for (const { file, text } of kept) if (readFileSync(file, "utf8") !== text) writeFileSync(file, text);
  }
  const buildDir = join(root, dist);
  await compressStatic(buildDir);

  const standalone = join(buildDir, "standalone");
  if (!existsSync(join(standalone, "server.js")))
    throw new Error(`${standalone}/server.js is missing: not a standalone build`);
  const out = resolve(outDir);
  rmSync(out, { recursive: true, force: true });
  mkdirSync(dirname(out), { recursive: true });
  cpSync(standalone, out, { recursive: true, verbatimSymlinks: false, dereference: true });
  cpSync(join(buildDir, "static"), join(out, dist, "static"), { recursive: true });
  if (existsSync(join(root, "public"))) cpSync(join(root, "public"), join(out, "public"), { recursive: true });

  const modules = existsSync(join(out, "node_modules")) ? readdirSync(join(out, "node_modules")) : [];
  const stowaways = EMBEDDED_ONLY_MODULES.filter((name) => modules.includes(name));
  if (stowaways.length > 0)
    throw new Error(
      `the console artifact holds the embedded server's ${stowaways.join(", ")}: something the console imports reaches server/`,
    );
  writeFileSync(
    join(out, "breakwater-package.json"),
    `${JSON.stringify({ basePath, distDir: dist, builtAt: new Date().toISOString(), node: process.version }, null, 2)}\n`,
  );

  const tarball = `${out}.tgz`;
  rmSync(tarball, { force: true });
  run("tar", ["-czf", tarball, "-C", dirname(out), basename(out)], process.env);
  return { dir: out, tarball, seconds: (Date.now() - t0) / 1000 };
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(__filename)) {
  packageConsole(process.argv[2] ?? join(root, "out", "breakwater")).then(
    ({ dir, tarball, seconds }) => console.log(`packaged ${dir} and ${tarball} in ${seconds.toFixed(0)} s`),
    (error: unknown) => {
      console.error(`package: ${error instanceof Error ? error.message : String(error)}`);
      process.exit(1);
    },
  );
}
