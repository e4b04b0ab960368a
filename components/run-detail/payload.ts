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
