/**
 * The build folder: `.next`, or `BREAKWATER_DIST_DIR` so concurrent builds on one machine
 * (developers, benches) keep apart. next.config.ts builds into it; the start script, the static-file
 * server, the compression script and the token-leak test read from it. Plain Node, no Next imports.
 */
export function distDir(): string {
  return process.env.BREAKWATER_DIST_DIR || ".next";
}

/**
 * The folder this build was made in, as next.config.ts inlined it (BREAKWATER_BUILT_DIST_DIR): the
 * packaged artifact (`npm run package`) runs from a folder of its own with no BREAKWATER_DIST_DIR set,
 * and its server still finds the build's static files. Outside a Next bundle, distDir().
 */
export function builtDistDir(): string {
  return process.env.BREAKWATER_BUILT_DIST_DIR || distDir();
}
