import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = join(__dirname, "..", "..");

/** The project files a module loads at run time (`import type` and packages left out), transitively. */
function runtimeImports(entry: string): Set<string> {
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const text = readFileSync(join(ROOT, file), "utf8");
    for (const match of text.matchAll(/^import (?!type )[^;]*?from "@\/([^"]+)";/gms)) {
      const base = match[1];
      const found = [".ts", ".tsx", "/index.ts"].map((ext) => base + ext).find((f) => existsSync(join(ROOT, f)));
      if (found) visit(found);
    }
  };
  visit(entry);
  return seen;
}

describe("the shell's reads", () => {
  // The attention badge is in the shell, so what its query module loads is in every route's first-load JS.
  it("do not load the Overview's metrics history", () => {
    const loaded = runtimeImports("components/attention/use-attention-count.ts");
    expect(loaded).toContain("lib/queries/metrics.ts");
    expect(loaded).not.toContain("lib/queries/metrics-history.ts");
    expect(loaded).not.toContain("lib/views/metrics-samples.ts");
  });
});
