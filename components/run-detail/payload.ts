import type * as CodecModule from "@/lib/dw/codec";

/**
 * History payloads keep codec blobs encoded (`arguments`, `result`, …). For display, every string
 * that decodes as an Avro payload is replaced by its value. The codec (avsc) is loaded only when an
 * operator opens a payload, so it stays out of the first-load bundle.
 */

type Codec = typeof CodecModule;

const BASE64 = /^[A-Za-z0-9+/]{8,}={0,2}$/;

function decodeValue(codec: Codec, value: unknown, codecName: string): unknown {
  if (typeof value === "string" && BASE64.test(value)) {
    const decoded = codec.decodeBlob(codecName, value);
    return decoded.decodable ? { decoded: codec.payloadValueToJson(decoded.value) } : value;
  }
  if (Array.isArray(value)) return value.map((item) => decodeValue(codec, item, codecName));
  if (typeof value === "object" && value !== null) {
    const record = value as Record<string, unknown>;
    const inner = typeof record.payload_codec === "string" ? record.payload_codec : codecName;
    if (typeof record.codec === "string" && typeof record.blob === "string") {
      const decoded = codec.decodeBlob(record.codec, record.blob);
      if (decoded.decodable) return { decoded: codec.payloadValueToJson(decoded.value) };
    }
    return Object.fromEntries(Object.entries(record).map(([key, item]) => [key, decodeValue(codec, item, inner)]));
  }
  return value;
}

export async function decodePayloadTree(payload: unknown): Promise<unknown> {
  const codec = await import("@/lib/dw/codec");
  return decodeValue(codec, payload, "avro");
}

/** Pretty JSON for a value that may hold bigints (decoded Avro longs). */
export function prettyJson(value: unknown): string {
  return (
    JSON.stringify(value, (_key, item: unknown) => (typeof item === "bigint" ? item.toString() : item), 2) ?? "null"
  );
}

/** One top-level key of a decoded payload, as the detail pane lists it. */
export interface PayloadEntry {
  key: string;
  /** The value as text: strings as they are, everything else as JSON (decoded blobs by their value). */
  text: string;
  /** The value is, or holds, a codec blob decoded for display. */
  decoded: boolean;
  /** Shown as a block (objects, arrays, long or multi-line text) rather than inline. */
  block: boolean;
}

function isDecodedMarker(value: unknown): value is { decoded: unknown } {
  return (
    typeof value === "object" &&
    value !== null &&
    !Array.isArray(value) &&
    Object.keys(value).length === 1 &&
    "decoded" in value
  );
}

/** The tree with {@link decodePayloadTree}'s `{ decoded }` markers replaced by their values; says whether any was. */
function unwrap(value: unknown): { value: unknown; decoded: boolean } {
  if (isDecodedMarker(value)) return { value: unwrap(value.decoded).value, decoded: true };
  if (Array.isArray(value)) {
    const items = value.map(unwrap);
    return { value: items.map((item) => item.value), decoded: items.some((item) => item.decoded) };
  }
  if (typeof value === "object" && value !== null) {
    let decoded = false;
    const entries = Object.entries(value).map(([key, item]) => {
      const inner = unwrap(item);
      decoded ||= inner.decoded;
      return [key, inner.value] as const;
    });
    return { value: Object.fromEntries(entries), decoded };
  }
  return { value, decoded: false };
}

const INLINE_MAX = 80;

/** Key/value rows of a decoded payload tree, in the payload's key order. A non-object payload is one `value` row. */
export function payloadEntries(tree: unknown): PayloadEntry[] {
  const record =
    typeof tree === "object" && tree !== null && !Array.isArray(tree) && !isDecodedMarker(tree)
      ? (tree as Record<string, unknown>)
      : { value: tree };
  return Object.entries(record).map(([key, raw]) => {
    const { value, decoded } = unwrap(raw);
    const text = typeof value === "string" ? value : prettyJson(value);
    const block = (typeof value === "object" && value !== null) || text.length > INLINE_MAX || text.includes("\n");
    return { key, text, decoded, block };
  });
}
