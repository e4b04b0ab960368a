import "server-only";
import { readFileSync } from "node:fs";
import { join } from "node:path";

/**
 * A request's route as the build knows it (`/namespaces/[namespace]/runs`, `/api/dw/[...path]`),
 * read from the build's routes-manifest.json, so the request metrics' `route` label has as many
 * values as the app has routes. A path no route matches (a 404, a probe for /wp-admin) is `other`.
 */

interface ManifestRoute {
  page: string;
  regex: string;
}

export interface RoutesManifest {
  basePath?: string;
  staticRoutes?: ManifestRoute[];
  dynamicRoutes?: ManifestRoute[];
}

export type RouteOf = (pathname: string) => string;

export function routeMatcher(manifest: RoutesManifest): RouteOf {
  const basePath = manifest.basePath ?? "";
  const exact = new Set((manifest.staticRoutes ?? []).map((route) => route.page));
  const dynamic = (manifest.dynamicRoutes ?? []).flatMap((route) => {
    try {
      return [{ page: route.page, regex: new RegExp(route.regex) }];
    } catch {
      return [];
    }
  });
  return (raw) => {
    let pathname = raw.split("?")[0] ?? "/";
    if (basePath !== "" && (pathname === basePath || pathname.startsWith(`${basePath}/`)))
      pathname = pathname.slice(basePath.length) || "/";
    if (pathname.startsWith("/_next/static/")) return "/_next/static";
    if (pathname.startsWith("/_next/")) return "/_next";
    const trimmed = pathname.length > 1 ? pathname.replace(/\/+$/, "") : pathname;
    if (exact.has(trimmed)) return trimmed;
    return dynamic.find((route) => route.regex.test(trimmed))?.page ?? "other";
  };
}

/** The matcher for the build in `distDir` (relative to the working directory); every path is `other` without one. */
export function buildRouteMatcher(distDir: string): RouteOf {
  try {
    const manifest = JSON.parse(
      readFileSync(join(process.cwd(), distDir, "routes-manifest.json"), "utf8"),
    ) as RoutesManifest;
    return routeMatcher(manifest);
  } catch {
    return routeMatcher({});
  }
}
