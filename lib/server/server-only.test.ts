import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

/**
 * Every lib/server module carries Next's `server-only` marker, so a client component that imports one
 * fails the build. The exception is what `npm start` (scripts/start.ts, plain Node through tsx, where
 * the marker would throw) loads before Next starts: found here by walking its imports, not listed.
 */

const ROOT = resolve(__dirname, "../..");
const MARKER = /^import "server-only";$/m;

function localImports(file: string): string[] {
  const source = readFileSync(file, "utf8");
  const specifiers = [...source.matchAll(/^import (?!type )[^;]*?from "([^"]+)";$/gms)].map((m) => m[1] ?? "");
  return specifiers
    .filter((spec) => spec.startsWith(".") || spec.startsWith("@/"))
    .map((spec) => (spec.startsWith("@/") ? join(ROOT, spec.slice(2)) : resolve(dirname(file), spec)))
    .flatMap((base) =>
      [`${base}.ts`, `${base}.tsx`, join(base, "index.ts")].filter((path) => existsSync(path)).slice(0, 1),
    );
}

function loadedBy(entry: string): Set<string> {
  const seen = new Set<string>();
  const pending = [join(ROOT, entry)];
  for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
    if (seen.has(file)) continue;
    seen.add(file);
    pending.push(...localImports(file));
  }
  return new Set([...seen].map((file) => relative(ROOT, file)));
}

function serverModules(dir = join(ROOT, "lib/server")): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return serverModules(path);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts") ? [relative(ROOT, path)] : [];
  });
}

describe("server-only marker", () => {
  const launcher = loadedBy("scripts/start.ts");
  const modules = serverModules();

  it("finds the lib/server modules the launcher loads on plain Node", () => {
    expect([...launcher].filter((file) => file.startsWith("lib/server/")).sort()).toEqual([
      "lib/server/auth/peer.ts",
      "lib/server/auth/roles.ts",
      "lib/server/auth/settings.ts",
      "lib/server/auth/trusted-proxies.ts",
      "lib/server/process/bind.ts",
      "lib/server/process/shutdown-grace.ts",
    ]);
  });

  it("is on every other lib/server module and on none the launcher loads", () => {
    const marked = modules.filter((file) => MARKER.test(readFileSync(join(ROOT, file), "utf8")));
    expect(marked.sort()).toEqual(modules.filter((file) => !launcher.has(file)).sort());
  });
});
