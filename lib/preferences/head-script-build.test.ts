import { describe, expect, it } from "vitest";
import { buildHeadScript } from "@/lib/preferences/head-script-build";
import { HEAD_SCRIPT } from "@/lib/preferences/head-script";
import { HEAD_SCRIPT_PARTS } from "@/lib/preferences/head-script.generated";

describe("the generated head script", () => {
  it("is what head-script-source.ts builds to (run `node --import tsx scripts/head-script.ts` after changing it)", () => {
    expect(HEAD_SCRIPT_PARTS).toBe(buildHeadScript());
  });

  it("is inlined as built, carries the names the page shares with it, and runs without strict mode", () => {
    expect(HEAD_SCRIPT.startsWith(HEAD_SCRIPT_PARTS)).toBe(true);
    for (const name of ["bw-tz", "bw-load-failed", "bw-script-reload", "data-early-tab", "data-theme-preference"])
      expect(HEAD_SCRIPT_PARTS).toContain(name);
    expect(HEAD_SCRIPT).not.toContain("use strict");
  });
});
