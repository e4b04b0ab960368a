import avro from "avsc";
import { z } from "zod";
import { at } from "../invariant";

/**
 * Payload codec of the Durable Workflow wire: `{codec: "avro", blob}` where `blob` is base64.
 *
 * Two framings exist. Current SDKs write the Avro single-object encoding (`C3 01`, the 8-byte
 * CRC-64-AVRO fingerprint of `durable_workflow.protocol.Value`, then the datum); rows written by
 * older engines hold `0x00` + the `durable_workflow.Payload {json, version}` record. We read both
 * and write only the current one.
 */

export type PayloadValue =
  null | boolean | number | bigint | string | Uint8Array | PayloadValue[] | { [key: string]: PayloadValue };

export const payloadEnvelopeSchema = z.object({ codec: z.string(), blob: z.string() }).loose();
export type PayloadEnvelope = { codec: string; blob: string };

export class PayloadCodecError extends Error {
  constructor(
    message: string,
    readonly reason: "invalid_payload_framing" | "unsupported_payload_schema" | "unsupported_payload_codec",
  ) {
    super(message);
    this.name = "PayloadCodecError";
  }
}

export const VALUE_SCHEMA_FINGERPRINT_HEX = "e2a33dff55802237";
const SINGLE_OBJECT_MAGIC = Buffer.from([0xc3, 0x01]);
const FINGERPRINT = Buffer.from(VALUE_SCHEMA_FINGERPRINT_HEX, "hex");
const HEADER_LENGTH = SINGLE_OBJECT_MAGIC.length + FINGERPRINT.length;

// avsc maps Avro longs to JS numbers and refuses values beyond 2^53; the wire carries full
// 64-bit longs, so longs travel as bigint inside the codec and become numbers when safe.
const bigintLong = avro.types.LongType.__with({
  fromBuffer: (buf: Buffer) => buf.readBigInt64LE(),
  toBuffer: (n: bigint) => {
    const buf = Buffer.alloc(8);
    buf.writeBigInt64LE(n);
    return buf;
  },
  fromJSON: (v: number | string) => BigInt(v),
  toJSON: (n: bigint) => Number(n),
  isValid: (n: unknown) => typeof n === "bigint",
  compare: (a: bigint, b: bigint) => (a === b ? 0 : a < b ? -1 : 1),
});

export const VALUE_SCHEMA = {
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

export const valueType = avro.Type.forSchema(VALUE_SCHEMA as unknown as avro.Schema, {
  wrapUnions: true,
  registry: { long: bigintLong },
});

/** The legacy `durable_workflow.Payload` record: JSON text with a version. */
export const LEGACY_PAYLOAD_SCHEMA = {
  type: "record",
  name: "Payload",
  namespace: "durable_workflow",
  fields: [
    { name: "json", type: "string" },
    { name: "version", type: "int", default: 1 },
  ],
} as const;

const legacyPayloadType = avro.Type.forSchema(LEGACY_PAYLOAD_SCHEMA as unknown as avro.Schema);

const NS = "durable_workflow.protocol.";
type WireDatum = { value: null | Record<string, Record<string, unknown>> };

function toDatum(value: unknown, path: string): WireDatum {
  const wrap = (branch: string, field: string, v: unknown): WireDatum => ({ value: { [NS + branch]: { [field]: v } } });
  if (value === null || value === undefined) return { value: null };
  if (typeof value === "boolean") return wrap("BooleanValue", "boolean", value);
  if (typeof value === "bigint") {
    if (value < -(2n ** 63n) || value >= 2n ** 63n)
      throw new PayloadCodecError(`integer overflow at ${path}`, "invalid_payload_framing");
    return wrap("LongValue", "long", value);
  }
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new PayloadCodecError(`non-finite number at ${path}`, "invalid_payload_framing");
    if (Number.isSafeInteger(value) && !Object.is(value, -0)) return wrap("LongValue", "long", BigInt(value));
    return wrap("DoubleValue", "double", value);
  }
  if (typeof value === "string") return wrap("StringValue", "string", value);
  if (value instanceof Uint8Array) return wrap("BytesValue", "bytes", Buffer.from(value));
  if (Array.isArray(value))
    return wrap(
      "ArrayValue",
      "items",
      value.map((v, i) => toDatum(v, `${path}[${i}]`)),
    );
  if (value instanceof Date) return wrap("StringValue", "string", value.toISOString());
  if (typeof value === "object") {
    // fromEntries defines own properties: a `__proto__` key stays an entry instead of becoming the prototype.
    const entries: Record<string, WireDatum> = Object.fromEntries(
      Object.entries(value as Record<string, unknown>)
        .filter(([, v]) => v !== undefined)
        .map(([k, v]) => [k, toDatum(v, `${path}.${k}`)]),
    );
    return wrap("MapValue", "entries", entries);
  }
  throw new PayloadCodecError(`unsupported value of type ${typeof value} at ${path}`, "invalid_payload_framing");
}

function fromDatum(datum: WireDatum): PayloadValue {
  if (datum.value === null) return null;
  const [branch, record] = Object.entries(datum.value)[0] as [string, Record<string, unknown>];
  switch (branch.slice(NS.length)) {
    case "BooleanValue":
      return record.boolean as boolean;
    case "LongValue": {
      const n = record.long as bigint;
      return n >= BigInt(Number.MIN_SAFE_INTEGER) && n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : n;
    }
    case "DoubleValue": {
      const d = record.double as number;
      if (!Number.isFinite(d)) throw new PayloadCodecError("non-finite double in payload", "invalid_payload_framing");
      return d;
    }
    case "BytesValue":
      return new Uint8Array(record.bytes as Buffer);
    case "StringValue":
      return record.string as string;
    case "ArrayValue":
      return (record.items as WireDatum[]).map(fromDatum);
    default: {
      const entries = record.entries as Record<string, WireDatum>;
      const pairs: [string, WireDatum][] = Object.entries(entries);
      // avsc reads maps by plain assignment, so a `__proto__` entry became the object's prototype
      // (every map value is a Value record, hence an object). Recover it as the entry it was.
      const proto: unknown = Object.getPrototypeOf(entries);
      if (proto !== Object.prototype && proto !== null) pairs.push(["__proto__", proto as WireDatum]);
      return Object.fromEntries(pairs.map(([k, v]) => [k, fromDatum(v)]));
    }
  }
}

/** Encodes a value as the base64 blob of an Avro single-object frame (the current framing). */
export function encodeBlob(value: unknown): string {
  const datum = valueType.toBuffer(toDatum(value, "$"));
  return Buffer.concat([SINGLE_OBJECT_MAGIC, FINGERPRINT, datum]).toString("base64");
}

export function encodePayload(value: unknown): PayloadEnvelope {
  return { codec: "avro", blob: encodeBlob(value) };
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** Decodes an `avro` blob in either framing. */
export function decodeBlob(blob: string): PayloadValue {
  if (blob.length === 0 || blob.length % 4 === 1 || !BASE64.test(blob)) {
    throw new PayloadCodecError("payload blob is not base64", "invalid_payload_framing");
  }
  const raw = Buffer.from(blob, "base64");
  // "==" passes the base64 check yet decodes to no bytes: no framing to read.
  if (raw.length === 0) throw new PayloadCodecError("payload blob is empty", "invalid_payload_framing");
  if (raw.length === 0) throw new PayloadCodecError("payload blob is empty", "invalid_payload_framing");
  if (raw[0] === 0xc3) {
    if (raw.length < HEADER_LENGTH + 1 || raw[1] !== 0x01) {
      throw new PayloadCodecError("truncated single-object frame", "invalid_payload_framing");
    }
    if (!raw.subarray(2, HEADER_LENGTH).equals(FINGERPRINT)) {
      throw new PayloadCodecError(
        `unknown schema fingerprint ${raw.subarray(2, HEADER_LENGTH).toString("hex")}`,
        "unsupported_payload_schema",
      );
    }
    let datum: WireDatum;
    try {
      datum = valueType.fromBuffer(raw.subarray(HEADER_LENGTH)) as WireDatum;
    } catch (e) {
      throw new PayloadCodecError(`invalid Value datum: ${(e as Error).message}`, "invalid_payload_framing");
    }
    return fromDatum(datum);
  }
  if (raw[0] === 0x00) {
    let record: { json: string };
    try {
      record = legacyPayloadType.fromBuffer(raw.subarray(1)) as { json: string };
    } catch (e) {
      throw new PayloadCodecError(`invalid Payload record: ${(e as Error).message}`, "invalid_payload_framing");
    }
    return JSON.parse(record.json) as PayloadValue;
  }
  if (raw[0] === 0x01) {
    throw new PayloadCodecError("typed Avro payload (0x01) needs its writer schema", "unsupported_payload_schema");
  }
  throw new PayloadCodecError(
    `unknown payload prefix 0x${at(raw, 0).toString(16).padStart(2, "0")}`,
    "invalid_payload_framing",
  );
}

/**
 * Decodes whatever a payload field holds on the wire: a `{codec, blob}` envelope, a bare blob
 * string (the codec then comes from a sibling `payload_codec`), or null when absent.
 */
export function decodePayload(field: unknown, codecHint?: string | null): PayloadValue {
  if (field === null || field === undefined) return null;
  if (typeof field === "string") {
    const codec = codecHint ?? "avro";
    if (codec !== "avro")
      throw new PayloadCodecError(`codec ${codec} is not decodable here`, "unsupported_payload_codec");
    return decodeBlob(field);
  }
  const env = payloadEnvelopeSchema.safeParse(field);
  if (env.success) {
    if (env.data.codec !== "avro") {
      throw new PayloadCodecError(`codec ${env.data.codec} is not decodable here`, "unsupported_payload_codec");
    }
    return decodeBlob(env.data.blob);
  }
  // Some servers hand back already-decoded JSON values (e.g. `result` given as raw JSON).
  return field as PayloadValue;
}
