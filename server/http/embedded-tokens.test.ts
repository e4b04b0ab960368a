import { mkdtempSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadOrCreateTokens, readTokensFile, tokensFilePath } from "./embedded-tokens";

/** The per-data-file tokens of docs/decisions/0043 on a real file system. */
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "bw-tokens-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("the embedded server's tokens file", () => {
  it("is made once, owner-only, with three different long random tokens, and read back unchanged", () => {
    const path = tokensFilePath(join(dir, "a.db"));
    const first = loadOrCreateTokens(path);
    expect(first.created).toBe(true);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const values = [first.tokens.worker, first.tokens.operator, first.tokens.admin];
    expect(new Set(values).size).toBe(3);
    for (const v of values) expect(v.length).toBeGreaterThanOrEqual(40);
    const again = loadOrCreateTokens(path);
    expect(again).toEqual({ tokens: first.tokens, created: false });
    // No temporary file is left beside it.
    expect(readdirSync(dir)).toEqual(["a.db.tokens.json"]);
  });

  it("is not a second set when another server made it first (the existing file wins)", () => {
    const path = join(dir, "b.db.tokens.json");
    const other = { worker: "w".repeat(40), operator: "o".repeat(40), admin: "a".repeat(40) };
    writeFileSync(path, JSON.stringify(other), { mode: 0o600 });
    expect(loadOrCreateTokens(path)).toEqual({ tokens: other, created: false });
  });

  it("refuses a symbolic link, a short token and a missing role", () => {
    const target = join(dir, "elsewhere.json");
    writeFileSync(target, JSON.stringify({ worker: "w".repeat(40), operator: "o".repeat(40), admin: "a".repeat(40) }), {
      mode: 0o600,
    });
    const link = join(dir, "link.db.tokens.json");
    symlinkSync(target, link);
    expect(() => loadOrCreateTokens(link)).toThrow(/symbolic link/);

    const short = join(dir, "short.json");
    writeFileSync(short, JSON.stringify({ worker: "w", operator: "o".repeat(40), admin: "a".repeat(40) }), {
      mode: 0o600,
    });
    expect(() => readTokensFile(short)).toThrow(/"worker" must be a token of at least 32 characters/);

    const missing = join(dir, "missing.json");
    writeFileSync(missing, JSON.stringify({ worker: "w".repeat(40), operator: "o".repeat(40) }), { mode: 0o600 });
    expect(() => readTokensFile(missing)).toThrow(/"admin" must be a token/);
  });
});
