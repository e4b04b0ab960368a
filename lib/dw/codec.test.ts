import { describe, expect, it } from "vitest";
import { base64ToBytes, decodeBlob, decodePayload, payloadValueToJson, VALUE_SCHEMA_FINGERPRINT_HEX } from "./codec";
import { historyExportSchema } from "./schemas-export";
import { fixture } from "./fixtures/fixture-fetch";

/** Build a legacy frame by hand (0x00 + Avro string + Avro int), independent of avsc. */
function legacyFrame(json: string, version = 1): string {
  const utf8 = new TextEncoder().encode(json);
  const zigzag = (n: number): number[] => {
    const out: number[] = [];
    let v = n >= 0 ? n * 2 : -n * 2 - 1;
    while (v > 0x7f) {
      out.push((v & 0x7f) | 0x80);
      v >>>= 7;
    }
    out.push(v);
    return out;
  };
  const bytes = [0x00, ...zigzag(utf8.length), ...utf8, ...zigzag(version)];
  return btoa(String.fromCharCode(...bytes));
}

function decoded(blob: string): unknown {
  const result = decodeBlob("avro", blob);
  if (!result.decodable) throw new Error(`not decodable: ${result.reason} ${result.detail}`);
  return result.value;
}

describe("legacy 0x00 Payload{json, version} framing", () => {
  it('decodes the documented example ABhbIm9yZGVyLTQyIl0C to ["order-42"]', () => {
    const result = decodeBlob("avro", "ABhbIm9yZGVyLTQyIl0C");
    expect(result).toEqual({ decodable: true, codec: "avro", framing: "avro-legacy-json", value: ["order-42"] });
  });

  it("decodes a hand-built frame with nested JSON and unicode", () => {
    const value = { order: "ö-42", lines: [1, 2.5, null], ok: true };
    expect(decoded(legacyFrame(JSON.stringify(value), 3))).toEqual(value);
  });

  it("a legacy frame whose json is not JSON is not decodable", () => {
    expect(decodeBlob("avro", legacyFrame("{nope"))).toMatchObject({
      decodable: false,
      reason: "invalid_payload_framing",
    });
  });
});

describe("single-object durable_workflow.protocol.Value framing", () => {
  // Wire vectors published with the protocol (fingerprint e2a33dff55802237).
  it.each([
    ["null", "wwHioz3/VYAiNwA=", null],
    ["boolean true", "wwHioz3/VYAiNwIB", true],
    ["boolean false", "wwHioz3/VYAiNwIA", false],
    ["long 7", "wwHioz3/VYAiNwQO", 7],
    ["double 7.0", "wwHioz3/VYAiNwYAAAAAAAAcQA==", 7],
    ["string héllo", "wwHioz3/VYAiNwoMaMOpbGxv", "héllo"],
    ["map", "wwHioz3/VYAiNw4EAmEEAgJiDAICAAAA", { a: 1, b: [false] }],
    ["empty map", "wwHioz3/VYAiNw4A", {}],
    ["map with key 0", "wwHioz3/VYAiNw4CAjAKCHplcm8A", { "0": "zero" }],
  ])("%s", (_name, blob, expected) => {
    const result = decodeBlob("avro", blob);
    expect(result).toMatchObject({ decodable: true, framing: "avro-single-object" });
    expect(result.decodable && result.value).toEqual(expected);
  });

  it("keeps bytes as bytes and the array branch in order", () => {
    expect(decoded("wwHioz3/VYAiNwgEAP8=")).toEqual(Uint8Array.from([0x00, 0xff]));
    expect(decoded("wwHioz3/VYAiNwwMAAIBBA4GAAAAAAAAHEAIBAD/Cgh0ZXh0AA==")).toEqual([
      null,
      true,
      7,
      7,
      Uint8Array.from([0, 255]),
      "text",
    ]);
  });

  it("keeps 64-bit longs exact as bigint beyond 2^53", () => {
    expect(decoded("wwHioz3/VYAiNwT///////////8B")).toBe(-9223372036854775808n);
    expect(decoded("wwHioz3/VYAiNwT+//////////8B")).toBe(9223372036854775807n);
  });

  it("preserves negative zero", () => {
    expect(Object.is(decoded("wwHioz3/VYAiNwYAAAAAAAAAgA=="), -0)).toBe(true);
  });

  it("decodes nested maps and lists", () => {
    expect(decoded("wwHioz3/VYAiNw4CCml0ZW1zDAYOAg5lbmFibGVkAgEACApieXRlcwYAAAAAAAAEwAAA")).toEqual({
      items: [{ enabled: true }, new TextEncoder().encode("bytes"), -2.5],
    });
  });

  it("exposes the schema fingerprint it accepts", () => {
    expect(VALUE_SCHEMA_FINGERPRINT_HEX).toBe("e2a33dff55802237");
  });

  it.each([
    ["empty after header", "wwHioz3/VYAiNw==", "invalid_payload_framing"],
    ["short header", "wwE=", "invalid_payload_framing"],
    ["truncated boolean", "wwHioz3/VYAiNwI=", "invalid_payload_framing"],
    ["truncated string", "wwHioz3/VYAiNwo=", "invalid_payload_framing"],
    ["trailing bytes", "wwHioz3/VYAiNwAA", "invalid_payload_framing"],
    ["invalid union branch", "wwHioz3/VYAiNxA=", "invalid_payload_framing"],
    ["NaN double", "wwHioz3/VYAiNwwCDgICeAYAAAAAAAD4fwAA", "invalid_payload_framing"],
    ["+Infinity double", "wwHioz3/VYAiNwwCDgICeAYAAAAAAADwfwAA", "invalid_payload_framing"],
    ["unknown prefix", "JSUl", "invalid_payload_framing"],
    ["not base64", "%%%not-base64", "invalid_payload_framing"],
    ["unknown fingerprint", "wwEdoz3/VYAiNwA=", "unsupported_payload_schema"],
  ])("%s → not decodable (%s)", (_name, blob, reason) => {
    const result = decodeBlob("avro", blob);
    expect(result).toMatchObject({ decodable: false, codec: "avro", blob, reason });
  });
});

describe("not decodable marker", () => {
  it.each(["workflow-serializer-y", "workflow-serializer-base64", "json"])(
    "unknown codec %s keeps the raw blob",
    (codec) => {
      expect(decodeBlob(codec, "Tzo4OiJzdGRDbGFzcyI6MDp7fQ==")).toEqual({
        decodable: false,
        codec,
        blob: "Tzo4OiJzdGRDbGFzcyI6MDp7fQ==",
        reason: "unsupported_codec",
        detail: `codec ${codec} is not decodable here`,
      });
    },
  );

  it("an external-storage envelope says so instead of guessing", () => {
    expect(decodePayload({ codec: "avro", external_storage: { uri: "s3://bucket/key" } })).toMatchObject({
      decodable: false,
      reason: "external_storage",
      blob: null,
    });
  });

  it("a missing blob is reported, not thrown", () => {
    expect(decodeBlob("avro", null)).toMatchObject({ decodable: false, reason: "missing_blob" });
  });

  it("decodePayload decodes a {codec, blob} envelope", () => {
    expect(decodePayload({ codec: "avro", blob: "ABhbIm9yZGVyLTQyIl0C" })).toMatchObject({
      decodable: true,
      value: ["order-42"],
    });
  });
});

describe("helpers", () => {
  it("base64ToBytes accepts unpadded input", () => {
    expect(base64ToBytes("AP8")).toEqual(Uint8Array.from([0, 255]));
  });

  it("a map key named __proto__ stays data and does not touch the prototype", () => {
    // Hand-built frame: header, MapValue branch (7), one entry "__proto__" → StringValue (5) "x", end of blocks.
    const proto = Array.from(new TextEncoder().encode("__proto__"));
    const bytes = [
      0xc3,
      0x01,
      0xe2,
      0xa3,
      0x3d,
      0xff,
      0x55,
      0x80,
      0x22,
      0x37,
      0x0e,
      0x02,
      0x12,
      ...proto,
      0x0a,
      0x02,
      0x78,
      0x00,
    ];
    const value = decoded(btoa(String.fromCharCode(...bytes))) as Record<string, unknown>;
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(value, "__proto__")?.value).toBe("x");
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("payloadValueToJson renders bigint and bytes for display", () => {
    expect(payloadValueToJson({ n: 9223372036854775807n, b: Uint8Array.from([0, 255]), l: [1, "x"] })).toEqual({
      n: "9223372036854775807",
      b: "AP8=",
      l: [1, "x"],
    });
  });

  it("decodes the activity arguments blob from a recorded export bundle", () => {
    const bundle = historyExportSchema.parse(fixture("history-export"));
    const args = bundle.activities?.[0]?.arguments;
    expect(typeof args).toBe("string");
    expect(decodeBlob(bundle.payloads.codec ?? "avro", args as string)).toMatchObject({
      decodable: true,
      value: ["order-42"],
    });
  });
});
