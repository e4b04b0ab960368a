import type { NextConfig } from "next";
import createNextIntlPlugin from "next-intl/plugin";

const withNextIntl = createNextIntlPlugin({
  requestConfig: "./lib/i18n/request.ts",
  experimental: {
    // The catalogs are compiled to next-intl's minimal format at build time, so browsers get the small
    // formatter instead of the ICU parser (intl-messageformat): ≈ 9 KB gzip off every route.
    messages: { path: "./messages", format: "json", locales: "infer", sourceLocale: "en", precompile: true },
  },
});

/**
 * Browser features the console never uses, switched off for it and anything it could embed. The
 * Content-Security-Policy needs a per-request nonce, so proxy.ts sets it (lib/server/csp.ts).
 */
const PERMISSIONS_POLICY = [
  "accelerometer=()",
  "autoplay=()",
  "camera=()",
  "display-capture=()",
  "geolocation=()",
  "gyroscope=()",
  "magnetometer=()",
  "microphone=()",
  "midi=()",
  "payment=()",
  "publickey-credentials-get=()",
  "screen-wake-lock=()",
  "usb=()",
  "xr-spatial-tracking=()",
  "browsing-topics=()",
].join(", ");

const nextConfig: NextConfig = {
  // A separate build folder per concurrent build (developers on one machine, benches); default .next.
  distDir: process.env.BREAKWATER_DIST_DIR || ".next",
  poweredByHeader: false,
  // BREAKWATER_UNMINIFIED=1 (with its own BREAKWATER_DIST_DIR): readable function names in a bench
  // profile (BENCH_PROFILE, bench/support/long-tasks.ts). Never for a build that is shipped.
  ...(process.env.BREAKWATER_UNMINIFIED === "1" ? { experimental: { turbopackMinify: false } } : {}),
  reactStrictMode: true,
  async headers() {
    return [
      {
        source: "/:path*",
        headers: [
          { key: "X-Content-Type-Options", value: "nosniff" },
          { key: "Referrer-Policy", value: "same-origin" },
          { key: "X-Frame-Options", value: "DENY" },
          { key: "Permissions-Policy", value: PERMISSIONS_POLICY },
          { key: "Cross-Origin-Opener-Policy", value: "same-origin" },
        ],
      },
    ];
  },
};

export default withNextIntl(nextConfig);
