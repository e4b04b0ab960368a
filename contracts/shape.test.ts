import { describe, expect, it } from "vitest";
import { shapeDifferences, shapeOf } from "./shape";

const diff = (real: unknown, embedded: unknown, opaque: string[] = []) => shapeDifferences(shapeOf(real), shapeOf(embedded), { opaque });

describe("shapeDifferences", () => {
  it("finds nothing between equal shapes with different values", () => {
    expect(diff({ a: "x", n: 1, list: [{ b: true }] }, { a: "y", n: 2, list: [{ b: false }, { b: true }] })).toEqual([]);
  });

  it("names missing keys, extra keys and wrong types", () => {
    expect(diff({ a: "x", code: 1 }, { code: "1", extra: null })).toEqual([
      "$.a: missing (the real server sends string)",
      "$.code: type string where the real server sends number",
      "$.extra: not sent by the real server (embedded sends null)",
    ]);
  });

  it("reports null where the real server never sends null, and accepts a value where the real sample was null", () => {
    expect(diff({ handled: false }, { handled: null })).toEqual(["$.handled: null where the real server sends boolean"]);
    expect(diff({ handled: null }, { handled: false })).toEqual([]);
  });

  it("merges array samples, so one null element makes a key nullable", () => {
    expect(diff({ rows: [{ n: 1 }, { n: null }] }, { rows: [{ n: null }] })).toEqual([]);
  });

  it("treats PHP's [] and {} as one empty value that fits a map or a list", () => {
    expect(diff({ memo: [] }, { memo: {} })).toEqual([]);
    expect(diff({ memo: { a: 1 } }, { memo: [] })).toEqual([]);
  });

  it("compares typed rows per type", () => {
    const real = { events: [{ type: "A", payload: { x: 1 } }, { type: "B", payload: { y: "s" } }] };
    const embedded = { events: [{ type: "A", payload: { x: 1, z: 2 } }, { type: "C", payload: {} }] };
    expect(diff(real, embedded)).toEqual([
      "$.events[A].payload.z: not sent by the real server (embedded sends number)",
      "$.events[B]: no such row from the embedded server",
      "$.events[C]: row not written by the real server in this scenario",
    ]);
  });

  it("compares only the type of opaque (data) paths", () => {
    expect(diff({ memo: { a: 1 } }, { memo: { b: "x" } }, ["$.memo"])).toEqual([]);
    expect(diff({ memo: ["a"] }, { memo: "x" }, ["$.memo"])).toEqual(["$.memo: type string where the real server sends array"]);
  });
});
