import { decodeBlob, payloadValueToJson } from "@/lib/dw/codec";

/**
 * History payloads keep codec blobs encoded (`arguments`, `result`, …). For display, every string
 * that decodes as an Avro payload is replaced by `{ decoded: value }`. This runs on the console
 * server: avsc compiles its readers with `new Function`, which the page's Content-Security-Policy
 * (no 'unsafe-eval', decision 0012) forbids in the browser, so a browser-side decode always threw.
 */

const BASE64 = /^[A-Za-z0-9+/]{8,}={0,2}$/;

export function decodeForDisplay(value: unknown, codecName = "avro"): unknown {
  if (typeof value === "string" && BASE64.test(value)) {
    const decoded = decodeBlob(codecName, value);
    return decoded.decodable ? { decoded: payloadValueToJson(decoded.value) } : value;
  }
  if (Array.isArray(value)) return value.map((item) => decodeForDisplay(item, codecName));
  if (typeof value === "object" && value !== null) {
    const record = value as Record<string, unknown>;
    const inner = typeof record.payload_codec === "string" ? record.payload_codec : codecName;
    if (typeof record.codec === "string" && typeof record.blob === "string") {
      const decoded = decodeBlob(record.codec, record.blob);
      if (decoded.decodable) return { decoded: payloadValueToJson(decoded.value) };
    }
    return Object.fromEntries(Object.entries(record).map(([key, item]) => [key, decodeForDisplay(item, inner)]));
  }
  return value;
}

/** JSON text of a decoded tree: bigints (Avro longs) as their digits. */
export function displayJson(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) => (typeof item === "bigint" ? item.toString() : item)) ?? "null";
}
