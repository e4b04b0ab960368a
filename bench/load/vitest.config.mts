import { defineConfig } from "vitest/config";
import { fileURLToPath } from "node:url";

// The console-load suite runs only from `npm run bench -- console-load`, never in `npm test`: it holds
// both cores for its whole duration, and the bench is where its percentiles are read.
export default defineConfig({
  root: fileURLToPath(new URL("../..", import.meta.url)),
  test: {
    include: ["bench/load/**/*.test.ts"],
    environment: "node",
    testTimeout: 600_000,
    hookTimeout: 60_000,
  },
});
