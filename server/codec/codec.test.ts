import { describe, expect, it } from "vitest";
import fc from "fast-check";
import {
  decodeBlob,
  decodePayload,
  encodeBlob,
  encodePayload,
  PayloadCodecError,
  VALUE_SCHEMA_FINGERPRINT_HEX,
  valueType,
} from "./codec";
import { at } from "../invariant";

/** CRC-64-AVRO (the Avro spec's Rabin fingerprint) of a schema's Parsing Canonical Form. */
function rabin(text: string): Buffer {
  const EMPTY = 0xc15d213aa4d7a795n;
  const table: bigint[] = [];
  for (let i = 0; i < 256; i++) {
    let fp = BigInt(i);
    for (let j = 0; j < 8; j++) fp = (fp >> 1n) ^ (EMPTY & -(fp & 1n));
    table.push(fp & 0xffffffffffffffffn);
  }
  let fp = EMPTY;
  for (const b of Buffer.from(text, "utf8")) fp = (fp >> 8n) ^ at(table, Number((fp ^ BigInt(b)) & 0xffn));
  const out = Buffer.alloc(8);
  out.writeBigUInt64LE(fp & 0xffffffffffffffffn);
  return out;
}

// Cross-language golden frames of durable_workflow.protocol.Value (published by the SDKs).
const golden: [string, unknown, string][] = [
  ["null", null, "wwHioz3/VYAiNwA="],
  ["boolean_false", false, "wwHioz3/VYAiNwIA"],
  ["boolean_true", true, "wwHioz3/VYAiNwIB"],
  ["long_min", -(2n ** 63n), "wwHioz3/VYAiNwT///////////8B"],
  ["long_max", 2n ** 63n - 1n, "wwHioz3/VYAiNwT+//////////8B"],
  ["long_7", 7, "wwHioz3/VYAiNwQO"],
  ["negative_zero", -0, "wwHioz3/VYAiNwYAAAAAAAAAgA=="],
  ["bytes_00ff", new Uint8Array([0, 255]), "wwHioz3/VYAiNwgEAP8="],
  ["string_utf8", "héllo", "wwHioz3/VYAiNwoMaMOpbGxv"],
  ["map", { a: 1, b: [false] }, "wwHioz3/VYAiNw4EAmEEAgJiDAICAAAA"],
  ["map_empty", {}, "wwHioz3/VYAiNw4A"],
  ["map_keys_0_1", { "0": "zero", "1": "one" }, "wwHioz3/VYAiNw4EAjAKCHplcm8CMQoGb25lAA=="],
  [
    "nested",
    { items: [{ enabled: true }, new Uint8Array(Buffer.from("bytes")), -2.5] },
    "wwHioz3/VYAiNw4CCml0ZW1zDAYOAg5lbmFibGVkAgEACApieXRlcwYAAAAAAAAEwAAA",
  ],
];

describe("avro payload codec", () => {
  it("uses the published fingerprint of the Value schema's canonical form", () => {
    expect(rabin(JSON.stringify(valueType.schema())).toString("hex")).toBe(VALUE_SCHEMA_FINGERPRINT_HEX);
  });

  it.each(golden)("writes the golden single-object frame for %s and reads it back", (_name, value, wire) => {
    expect(encodeBlob(value)).toBe(wire);
    expect(decodeBlob(wire)).toEqual(value);
  });

  it("reads the older 0x00 + Payload{json, version} framing", () => {
    expect(decodePayload({ codec: "avro", blob: "ABhbIm9yZGVyLTQyIl0C" })).toEqual(["order-42"]);
  });

  it("reads bare blobs with a sibling codec and writes envelopes", () => {
    const env = encodePayload(["order-42", { amount: 12.5 }]);
    expect(env.codec).toBe("avro");
    expect(Buffer.from(env.blob, "base64").subarray(0, 10).toString("hex")).toBe(`c301${VALUE_SCHEMA_FINGERPRINT_HEX}`);
    expect(decodePayload(env.blob, "avro")).toEqual(["order-42", { amount: 12.5 }]);
    expect(decodePayload(null)).toBeNull();
  });

  it("decodes maps written in either key order to the same value", () => {
    const a = decodeBlob("wwHioz3/VYAiNw4ECm91dGVyDAIOBAhsZWZ0BAIKcmlnaHQIAngAAAh0YWlsCghkb25lAA==");
    const b = decodeBlob("wwHioz3/VYAiNw4ECHRhaWwKCGRvbmUKb3V0ZXIMAg4ECnJpZ2h0CAJ4CGxlZnQEAgAAAA==");
    expect(a).toEqual(b);
    expect(a).toEqual({ outer: [{ left: 1, right: new Uint8Array(Buffer.from("x")) }], tail: "done" });
  });

  it.each([
    ["empty_blob", "", "invalid_payload_framing"],
    // Passes the base64 check but decodes to no bytes (it once crashed reading the missing prefix).
    ["padding_only", "==", "invalid_payload_framing"],
    ["invalid_base64", "JSUl", "invalid_payload_framing"],
    ["short_frame", "wwE=", "invalid_payload_framing"],
    ["no_datum", "wwHioz3/VYAiNw==", "invalid_payload_framing"],
    ["truncated_boolean", "wwHioz3/VYAiNwI=", "invalid_payload_framing"],
    ["trailing_bytes", "wwHioz3/VYAiNwAA", "invalid_payload_framing"],
    ["invalid_union_branch", "wwHioz3/VYAiNxA=", "invalid_payload_framing"],
    ["nan_double", "wwHioz3/VYAiNwwCDgICeAYAAAAAAAD4fwAA", "invalid_payload_framing"],
    ["unknown_fingerprint", "wwEdoz3/VYAiNwA=", "unsupported_payload_schema"],
  ])("rejects the malformed frame %s", (_name, wire, reason) => {
    expect(() => decodeBlob(wire)).toThrow(PayloadCodecError);
    try {
      decodeBlob(wire);
    } catch (e) {
      expect((e as PayloadCodecError).reason).toBe(reason);
    }
  });

  it("refuses codecs it cannot decode", () => {
    expect(() => decodePayload({ codec: "workflow-serializer-y", blob: "abc" })).toThrow(/not decodable/);
  });

  it("keeps a `__proto__` key as data, in both directions", () => {
    // JSON.parse makes `__proto__` an own key; assignment would make it the prototype instead.
    for (const text of ['{"__proto__":null}', '{"__proto__":{"polluted":true},"a":1}', '[{"x":{"__proto__":[1,2]}}]']) {
      const value = JSON.parse(text) as unknown;
      const back = decodeBlob(encodeBlob(value));
      expect(back).toEqual(value);
      // The key survives as data (Avro maps keep no order, so it may come back last).
      expect(JSON.parse(JSON.stringify(back))).toEqual(value);
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("round-trips any JSON-shaped value", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        const normalised = JSON.parse(JSON.stringify(v)) as unknown;
        expect(decodeBlob(encodeBlob(normalised))).toEqual(normalised);
      }),
      { numRuns: 300 },
    );
  });
});
