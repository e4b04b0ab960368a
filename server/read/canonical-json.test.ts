import { createHash, createHmac } from "node:crypto";
import { describe, expect, test } from "vitest";
import { canonicalDigests, canonicalJson } from "./canonical-json";

describe("canonical JSON digests", () => {
  // Large enough to cross several chunk flushes, with non-ASCII text and lone surrogates at varied offsets.
  const value = {
    z: Array.from({ length: 3000 }, (_, i) => ({
      seq: i,
      name: `évènement-${i}-😀`,
      odd: i % 7 === 0 ? "\ud800" : null,
      nested: { b: [1.5, true], a: "/x" },
    })),
    a: { skipped: undefined, kept: "ü" },
  };

  test("hashing as it writes equals hashing the whole canonical text", () => {
    const text = canonicalJson(value);
    expect(text.length).toBeGreaterThan(1 << 17);
    expect(/^[\x20-\x7e]*$/.test(text)).toBe(true);
    const d = canonicalDigests(value, "secret");
    expect(d.sha256).toBe(createHash("sha256").update(text, "utf8").digest("hex"));
    expect(d.hmacSha256).toBe(createHmac("sha256", "secret").update(text, "utf8").digest("hex"));
    expect(canonicalDigests(value, null).hmacSha256).toBeNull();
  });

  test("keys sort recursively, undefined members drop, non-ASCII units escape", () => {
    expect(canonicalJson({ b: 1, a: { d: [2, undefined], c: "é/" }, u: undefined })).toBe(
      '{"a":{"c":"\\u00e9/","d":[2,null]},"b":1}',
    );
  });
});
