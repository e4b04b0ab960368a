import { describe, expect, test } from "vitest";
import { canonicalDigests } from "./canonical-json";
import { canonicalDigestSteps, jsonChunks } from "./chunked-json";
import { runSync } from "./time-slice";

/** Values where the split levels (root, its objects, lists two deep) meet every case `JSON.stringify` treats specially. */
const awkward: Record<string, unknown> = {
  "z-last": 1,
  é: "naïve ☃ 😀",
  "10": "integer-like key",
  "2": "ordered first by JS",
  skipped: undefined,
  fn: () => 1,
  list: [1, undefined, () => 2, null, "x", [undefined, [1, [2]]], { b: 1, a: undefined }],
  nested: {
    list: [{ deep: { deeper: [1, 2, { k: "v" }] } }, undefined],
    date: new Date(Date.UTC(2026, 0, 2)),
    empty: {},
    none: [],
  },
  numbers: [0, -0, 1e21, 1.5, Number.NaN, Number.POSITIVE_INFINITY],
  lists: [
    [1, 2],
    [[3], []],
  ],
  big: Array.from({ length: 3000 }, (_, i) => ({ i, s: "ü".repeat(i % 50), nested: { a: [i] } })),
};

describe("chunked encoders", () => {
  test("jsonChunks joins to exactly JSON.stringify, in more than one chunk for a large value", () => {
    const chunks = [...jsonChunks(awkward)].filter((c): c is string => c !== undefined);
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks.join("")).toBe(JSON.stringify(awkward));
    for (const v of [null, 7, "s", [], {}, [undefined], { a: undefined }])
      expect([...jsonChunks(v)].join("")).toBe(JSON.stringify(v));
  });

  test("canonicalDigestSteps gives canonicalDigests' checksum and signature", () => {
    expect(runSync(canonicalDigestSteps(awkward, null))).toEqual(canonicalDigests(awkward, null));
    expect(runSync(canonicalDigestSteps(awkward, "key"))).toEqual(canonicalDigests(awkward, "key"));
    expect(runSync(canonicalDigestSteps([], "key"))).toEqual(canonicalDigests([], "key"));
  });
});
