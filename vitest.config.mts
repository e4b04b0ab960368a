import { defineConfig } from "vitest/config";
import { fileURLToPath } from "node:url";

export default defineConfig({
  resolve: {
    alias: {
      "@": fileURLToPath(new URL("./", import.meta.url)),
      // Next resolves the `server-only` marker to an empty module on its server layers (and fails the
      // build when a client module imports it); the unit tests run lib/server on Node, a server too.
      "server-only": fileURLToPath(new URL("./node_modules/server-only/empty.js", import.meta.url)),
    },
  },
  test: {
    include: [
      "{lib,server,components,app,contracts,conformance}/**/*.test.{ts,tsx}",
      "tests/**/*.test.{ts,tsx}",
      // The bench's own analysis (trace reading); the bench itself runs with `npm run bench`.
      "bench/support/**/*.test.ts",
    ],
    environment: "node",
    setupFiles: ["./vitest.setup.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Engine suites open real SQLite files and real HTTP ports; two cores run two files at once.
    maxWorkers: 2,
  },
});
