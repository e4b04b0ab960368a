/**
 * The sub-path the console is served under behind a reverse proxy (`/ops/breakwater`), or "" at the
 * root. Next's basePath is fixed when the app is built: `BREAKWATER_BASE_PATH` is read by
 * next.config.ts, which hands the normalised value to every bundle (browser and server) as
 * BREAKWATER_BUILT_BASE_PATH. Next adds it to its own links, router, assets and redirects; what the
 * console builds itself (fetches, form actions, Location headers, cookie paths, the static-file server)
 * goes through here. Plain module (no Next imports): plain-Node scripts read it too. Decision 0068.
 */

/** "" or "/seg/seg" (no trailing slash), or an Error naming what is wrong with `raw`. */
export function normalizeBasePath(raw: string | undefined): string {
  const value = (raw ?? "").trim();
  if (value === "" || value === "/") return "";
  const path = value.replace(/\/+$/, "");
  if (!path.startsWith("/") || path.startsWith("//"))
    throw new Error(`BREAKWATER_BASE_PATH must start with one "/" (e.g. /ops/breakwater); got "${value}".`);
  if (!/^(\/[A-Za-z0-9._~-]+)+$/.test(path) || path.split("/").some((s) => s === "." || s === ".."))
    throw new Error(
      `BREAKWATER_BASE_PATH may hold only path segments of letters, digits and . _ ~ - (e.g. /ops/breakwater); got "${value}".`,
    );
  return path;
}

/** This build's base path: inlined at build time (next.config.ts `env`); at run time in plain Node, the variable. */
export const BASE_PATH: string =
  process.env.BREAKWATER_BUILT_BASE_PATH ?? normalizeBasePath(process.env.BREAKWATER_BASE_PATH);

/** A console path (`/api/dw/…`, `/login?…`) as the browser must ask for it. */
export function withBasePath(path: string, base: string = BASE_PATH): string {
  return `${base}${path}`;
}

/** The Path attribute of the console's cookies: its own sub-path, so other apps on the host never receive them. */
export function cookiePath(base: string = BASE_PATH): string {
  return base || "/";
}
