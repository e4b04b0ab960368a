import { ESLint } from "eslint";
import { describe, expect, it } from "vitest";

/**
 * The server's layering (eslint.config.mjs, SERVER_ZONES) refuses what it should and lets through
 * what it should: each case lints one import as if written in the named file. Type-aware rules are
 * off here (the file is not on disk), the zones are the config's own.
 */
const eslint = new ESLint({
  cwd: process.cwd(),
  overrideConfig: {
    languageOptions: { parserOptions: { projectService: false } },
    rules: { "@typescript-eslint/no-floating-promises": "off" },
  },
});

async function refusals(filePath: string, from: string): Promise<string[]> {
  const [result] = await eslint.lintText(`export * from "${from}";\n`, { filePath });
  return (result?.messages ?? []).filter((m) => m.ruleId === "import/no-restricted-paths").map((m) => m.message);
}

describe("server layers (lint)", () => {
  it.each([
    ["server/store/x.ts", "../engine"],
    ["server/engine/x.ts", "../read/runs"],
    ["server/engine/x.ts", "../http/app"],
    ["server/engine/x.ts", "../sdk/worker"],
    ["server/read/x.ts", "../http/app"],
    ["server/read/x.ts", "../demo/seed"],
    ["server/http/x.ts", "../sdk/worker"],
    ["server/sdk/x.ts", "../engine"],
    ["server/sdk/x.ts", "../store/db"],
    ["server/codec/x.ts", "../sdk/worker"],
    ["server/engine/x.ts", "../test-support/known-runs"],
    ["server/http/x.ts", "./test-support"],
  ])(
    "refuses %s importing %s",
    async (file, from) => {
      expect(await refusals(file, from)).not.toEqual([]);
    },
    60_000,
  );

  it.each([
    ["server/engine/x.ts", "../store/db"],
    ["server/engine/x.ts", "../codec/codec"],
    ["server/read/x.ts", "../engine"],
    ["server/http/x.ts", "../read/runs"],
    ["server/sdk/x.ts", "../codec/codec"],
    ["server/demo/x.ts", "../engine"],
    ["server/engine/x.test.ts", "../test-support/known-runs"],
  ])(
    "allows %s importing %s",
    async (file, from) => {
      expect(await refusals(file, from)).toEqual([]);
    },
    60_000,
  );
});
