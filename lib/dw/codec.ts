import type { Schema, Type } from "avsc";
import avroTypes from "avsc/etc/browser/avsc-types";
import { Buffer } from "buffer";
import type { PayloadEnvelope } from "./schema-kit";

/**
 * Payload codec decoding (server-api.md §7 item 7).
 *
 * Runs in Node and, through the bundler's `buffer` polyfill, in browsers: avsc reads Node-style
 * Buffers, so this module imports the `buffer` package rather than relying on a global. Decode on
 * the server where possible — avsc adds noticeable weight to a client bundle.
 *
 * Two Avro framings are read:
 * - single-object (current SDKs): `C3 01` + 8-byte schema fingerprint `e2a33dff55802237` + a datum
 *   of the recursive `durable_workflow.protocol.Value` record;
 * - legacy (`0x00` prefix): a `durable_workflow.Payload {json: string, version: int}` record whose
 *   `json` field holds the JSON-encoded value.
 * Anything else — other codecs (`workflow-serializer-*`), other framings, external-storage
 * references, corrupt frames — yields a `not_decodable` marker that keeps the raw blob.
 */

/** A decoded `durable_workflow.protocol.Value`: longs beyond 2^53 stay exact as `bigint`, bytes stay bytes. */
export type PayloadValue =
  null | boolean | number | bigint | string | Uint8Array | PayloadValue[] | { [key: string]: PayloadValue };

export type PayloadFraming = "avro-single-object" | "avro-legacy-json";

export type NotDecodableReason =
  /** The codec is not Avro (e.g. PHP-only `workflow-serializer-y`). */
  | "unsupported_codec"
  /** The bytes are not a well-formed frame: bad base64, truncated, trailing bytes, NaN, bad union branch. */
  | "invalid_payload_framing"
  /** A single-object frame written with a schema other than `durable_workflow.protocol.Value` v1. */
  | "unsupported_payload_schema"
  /** The payload was offloaded; the envelope carries a storage reference, not bytes. */
  | "external_storage"
  /** No blob to decode. */
  | "missing_blob";

export interface DecodedPayload {
  readonly decodable: true;
  readonly codec: string;
  readonly framing: PayloadFraming;
  /** `PayloadValue` for single-object frames; arbitrary JSON for the legacy framing. */
  readonly value: unknown;
}

export interface NotDecodablePayload {
  readonly decodable: false;
  readonly codec: string;
  /** The raw base64 blob, kept so the UI can still offer it verbatim. */
  readonly blob: string | null;
  readonly reason: NotDecodableReason;
  readonly detail: string;
}

export type PayloadDecodeResult = DecodedPayload | NotDecodablePayload;

export const VALUE_SCHEMA_FINGERPRINT_HEX = "e2a33dff55802237";

// The fingerprint is the CRC-64-AVRO of this exact schema's canonical form: it is a wire
// contract, so the field and record names must not change.
const VALUE_SCHEMA = {
  type: "record",
  name: "Value",
  namespace: "durable_workflow.protocol",
  fields: [
    {
      name: "value",
      type: [
        "null",
        { type: "record", name: "BooleanValue", fields: [{ name: "boolean", type: "boolean" }] },
        { type: "record", name: "LongValue", fields: [{ name: "long", type: "long" }] },
        { type: "record", name: "DoubleValue", fields: [{ name: "double", type: "double" }] },
        { type: "record", name: "BytesValue", fields: [{ name: "bytes", type: "bytes" }] },
        { type: "record", name: "StringValue", fields: [{ name: "string", type: "string" }] },
        { type: "record", name: "ArrayValue", fields: [{ name: "items", type: { type: "array", items: "Value" } }] },
        { type: "record", name: "MapValue", fields: [{ name: "entries", type: { type: "map", values: "Value" } }] },
      ],
    },
  ],
} as const;

const LEGACY_PAYLOAD_SCHEMA = {
  type: "record",
  name: "Payload",
  namespace: "durable_workflow",
  fields: [
    { name: "json", type: "string" },
    { name: "version", type: "int", default: 1 },
  ],
} as const;

const SINGLE_OBJECT_MAGIC = [0xc3, 0x01] as const;
const SINGLE_OBJECT_HEADER_BYTES = 10;
const LEGACY_PREFIX = 0x00;

/** Exact 64-bit longs: JS numbers when safe, `bigint` otherwise (avsc's default long throws instead). */
const exactLong = avroTypes.types.LongType.__with({
  fromBuffer: (buf: Buffer): number | bigint => {
    const n = buf.readBigInt64LE(0);
    return n >= BigInt(Number.MIN_SAFE_INTEGER) && n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : n;
  },
  toBuffer: (n: number | bigint): Buffer => {
    const buf = Buffer.alloc(8);
    buf.writeBigInt64LE(BigInt(n), 0);
    return buf;
  },
  fromJSON: (n: number | string): number | bigint => (typeof n === "string" ? BigInt(n) : n),
  toJSON: (n: number | bigint): number | string => (typeof n === "bigint" ? n.toString() : n),
  isValid: (n: unknown): boolean => typeof n === "bigint" || (typeof n === "number" && Number.isSafeInteger(n)),
  compare: (a: number | bigint, b: number | bigint): number =>
    BigInt(a) < BigInt(b) ? -1 : BigInt(a) > BigInt(b) ? 1 : 0,
});

let valueType: Type | null = null;
let legacyType: Type | null = null;

/** Built on first use so importing this module costs nothing until a payload is decoded. */
function types(): { value: Type; legacy: Type } {
  valueType ??= avroTypes.Type.forSchema(VALUE_SCHEMA as unknown as Schema, {
    wrapUnions: true,
    registry: { long: exactLong },
  });
  legacyType ??= avroTypes.Type.forSchema(LEGACY_PAYLOAD_SCHEMA as unknown as Schema);
  return { value: valueType, legacy: legacyType };
}

class FrameError extends Error {
  constructor(
    readonly reason: "invalid_payload_framing" | "unsupported_payload_schema",
    message: string,
  ) {
    super(message);
  }
}

/** Decode base64 (standard alphabet, padding optional) without Node APIs. */
export function base64ToBytes(base64: string): Uint8Array {
  const clean = base64.replace(/\s+/g, "");
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(clean) || clean.length % 4 === 1) {
    throw new FrameError("invalid_payload_framing", "blob is not valid base64");
  }
  const binary = atob(clean.padEnd(clean.length + ((4 - (clean.length % 4)) % 4), "="));
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i += 1) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

function hex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

function readAvro(type: Type, bytes: Uint8Array): unknown {
  try {
    return type.fromBuffer(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  } catch (error) {
    throw new FrameError("invalid_payload_framing", error instanceof Error ? error.message : String(error));
  }
}

const BRANCH_PREFIX = "durable_workflow.protocol.";

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof Uint8Array);
}

/** Unwrap avsc's `{value: {"durable_workflow.protocol.X": {...}}}` representation into a plain value. */
function toPayloadValue(datum: unknown): PayloadValue {
  if (!isRecord(datum)) throw new FrameError("invalid_payload_framing", "Value datum is not a record");
  const branch = datum.value;
  if (branch === null) return null;
  if (!isRecord(branch)) throw new FrameError("invalid_payload_framing", "Value union is not wrapped");
  const [name, inner] = Object.entries(branch)[0] ?? [];
  if (name === undefined || !isRecord(inner)) throw new FrameError("invalid_payload_framing", "empty Value union");
  switch (name.startsWith(BRANCH_PREFIX) ? name.slice(BRANCH_PREFIX.length) : name) {
    case "BooleanValue":
      return inner.boolean as boolean;
    case "LongValue":
      return inner.long as number | bigint;
    case "DoubleValue": {
      const n = inner.double as number;
      // JSON, PHP and Python cannot carry NaN/Infinity, so the protocol forbids them.
      if (!Number.isFinite(n)) throw new FrameError("invalid_payload_framing", "non-finite double");
      return n;
    }
    case "BytesValue":
      return Uint8Array.from(inner.bytes as Uint8Array);
    case "StringValue":
      return inner.string as string;
    case "ArrayValue":
      return (inner.items as unknown[]).map(toPayloadValue);
    case "MapValue": {
      const entries = inner.entries as Record<string, unknown>;
      const pairs: Array<[string, unknown]> = Object.entries(entries);
      // avsc reads maps by plain assignment, so a `__proto__` key became the object's prototype
      // instead of an entry (every map value is a Value record, hence an object). Recover it.
      const proto: unknown = Object.getPrototypeOf(entries);
      if (proto !== Object.prototype && proto !== null) pairs.push(["__proto__", proto]);
      // fromEntries defines own properties, so the key stays data here.
      return Object.fromEntries(pairs.map(([k, v]) => [k, toPayloadValue(v)]));
    }
    default:
      throw new FrameError("invalid_payload_framing", `unknown Value branch ${name}`);
  }
}

function decodeAvroBytes(bytes: Uint8Array): { framing: PayloadFraming; value: unknown } {
  if (bytes.length === 0) throw new FrameError("invalid_payload_framing", "empty blob");
  if (bytes[0] === SINGLE_OBJECT_MAGIC[0] && bytes[1] === SINGLE_OBJECT_MAGIC[1]) {
    if (bytes.length < SINGLE_OBJECT_HEADER_BYTES) {
      throw new FrameError("invalid_payload_framing", "single-object header is truncated");
    }
    const fingerprint = hex(bytes.subarray(2, SINGLE_OBJECT_HEADER_BYTES));
    if (fingerprint !== VALUE_SCHEMA_FINGERPRINT_HEX) {
      throw new FrameError("unsupported_payload_schema", `unknown writer schema fingerprint ${fingerprint}`);
    }
    const datum = readAvro(types().value, bytes.subarray(SINGLE_OBJECT_HEADER_BYTES));
    return { framing: "avro-single-object", value: toPayloadValue(datum) };
  }
  if (bytes[0] === LEGACY_PREFIX) {
    const record = readAvro(types().legacy, bytes.subarray(1));
    const json = isRecord(record) ? record.json : undefined;
    if (typeof json !== "string") throw new FrameError("invalid_payload_framing", "legacy payload has no json field");
    try {
      return { framing: "avro-legacy-json", value: JSON.parse(json) as unknown };
    } catch {
      throw new FrameError("invalid_payload_framing", "legacy payload json is not valid JSON");
    }
  }
  throw new FrameError("invalid_payload_framing", `unrecognised Avro framing prefix 0x${hex(bytes.subarray(0, 1))}`);
}

/** Decode one base64 blob tagged with `codec` (history payloads carry the codec in a sibling `payload_codec`). */
export function decodeBlob(codec: string, blob: string | null | undefined): PayloadDecodeResult {
  if (blob == null || blob === "") {
    return { decodable: false, codec, blob: blob ?? null, reason: "missing_blob", detail: "no payload bytes" };
  }
  if (codec !== "avro") {
    return {
      decodable: false,
      codec,
      blob,
      reason: "unsupported_codec",
      detail: `codec ${codec} is not decodable here`,
    };
  }
  try {
    const { framing, value } = decodeAvroBytes(base64ToBytes(blob));
    return { decodable: true, codec, framing, value };
  } catch (error) {
    if (error instanceof FrameError)
      return { decodable: false, codec, blob, reason: error.reason, detail: error.message };
    throw error;
  }
}

/** Decode a `{codec, blob}` envelope (describe `input_envelope`, command inputs, newer export slots). */
export function decodePayload(envelope: PayloadEnvelope): PayloadDecodeResult {
  if (envelope.blob === undefined && envelope.external_storage !== undefined) {
    return {
      decodable: false,
      codec: envelope.codec,
      blob: null,
      reason: "external_storage",
      detail: "payload is held in external storage",
    };
  }
  return decodeBlob(envelope.codec, envelope.blob);
}

/** JSON-safe rendering of a decoded value for display: bigint → decimal string, bytes → base64 string. */
export function payloadValueToJson(value: unknown): unknown {
  if (typeof value === "bigint") return value.toString();
  if (value instanceof Uint8Array) {
    let binary = "";
    for (const byte of value) binary += String.fromCharCode(byte);
    return btoa(binary);
  }
  if (Array.isArray(value)) return value.map(payloadValueToJson);
  if (isRecord(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, payloadValueToJson(v)]));
  return value;
}
