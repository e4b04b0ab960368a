import { defineConfig } from "vitest/config";
import { fileURLToPath } from "node:url";

export default defineConfig({
  resolve: { alias: { "@": fileURLToPath(new URL("./", import.meta.url)) } },
  test: {
    include: ["{lib,server,components,app,contracts,conformance}/**/*.test.{ts,tsx}", "tests/**/*.test.{ts,tsx}"],
    environment: "node",
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Engine suites open real SQLite files and real HTTP ports; two cores run two files at once.
    maxWorkers: 2,
  },
});
