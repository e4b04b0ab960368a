import type { NextConfig } from "next";
import createNextIntlPlugin from "next-intl/plugin";
import { normalizeBasePath } from "./lib/http/base-path";
import { distDir } from "./lib/http/dist-dir";
import { SECURITY_HEADERS } from "./lib/http/security-headers";

const withNextIntl = createNextIntlPlugin({
  requestConfig: "./lib/i18n/request.ts",
  experimental: {
    // The catalogs are compiled to next-intl's minimal format at build time, so browsers get the small
    // formatter instead of the ICU parser (intl-messageformat), on every route.
    messages: { path: "./messages", format: "json", locales: "infer", sourceLocale: "en", precompile: true },
  },
});

// The console's sub-path behind a reverse proxy (docs/deployment.md): fixed at build time, as Next's basePath is.
const basePath = normalizeBasePath(process.env.BREAKWATER_BASE_PATH);

const nextConfig: NextConfig = {
  distDir: distDir(),
  ...(basePath ? { basePath } : {}),
  // `npm run package` (scripts/package.ts): a self-contained server.js with only the modules it traces.
  // Its type check is skipped: `npm test` type-checks the same sources once (`npm run typecheck`).
  ...(process.env.BREAKWATER_STANDALONE === "1"
    ? { output: "standalone" as const, typescript: { ignoreBuildErrors: true } }
    : {}),
  // Inlined into every bundle: what the console builds itself goes under the sub-path
  // (lib/http/base-path.ts), and a packaged server finds its static files (lib/http/dist-dir.ts).
  env: { BREAKWATER_BUILT_BASE_PATH: basePath, BREAKWATER_BUILT_DIST_DIR: distDir() },
  poweredByHeader: false,
  // BREAKWATER_UNMINIFIED=1 (with its own BREAKWATER_DIST_DIR): readable function names in a bench
  // profile (BENCH_PROFILE, bench/support/long-tasks.ts). Never for a build that is shipped.
  ...(process.env.BREAKWATER_UNMINIFIED === "1" ? { experimental: { turbopackMinify: false } } : {}),
  // BREAKWATER_SOURCE_MAPS=1 (with its own BREAKWATER_DIST_DIR): browser source maps, to rank what the
  // first-load chunks hold by module. Off by default: a shipped build serves no maps.
  productionBrowserSourceMaps: process.env.BREAKWATER_SOURCE_MAPS === "1",
  reactStrictMode: true,
  turbopack: {
    resolveAlias: {
      // TanStack Table's store imports the React 17 shim of useSyncExternalStore; React 19 has it
      // built in, and the entry without the shim uses it (smaller on every table route).
      "use-sync-external-store/shim/with-selector": "use-sync-external-store/with-selector",
    },
  },
  async headers() {
    return [
      {
        source: "/:path*",
        headers: [...SECURITY_HEADERS],
      },
    ];
  },
};

export default withNextIntl(nextConfig);
