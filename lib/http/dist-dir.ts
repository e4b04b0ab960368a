/**
 * The build folder: `.next`, or `BREAKWATER_DIST_DIR` so concurrent builds on one machine
 * (developers, benches) keep apart. next.config.ts builds into it; the start script, the static-file
 * server, the compression script and the token-leak test read from it. Plain Node, no Next imports.
 */
export function distDir(): string {
  return process.env.BREAKWATER_DIST_DIR || ".next";
}
