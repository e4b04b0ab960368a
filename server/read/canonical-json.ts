import { createHash, createHmac } from "node:crypto";

/**
 * `json-recursive-ksort-v1`: objects with keys sorted recursively (lists keep their order), encoded
 * the way the reference engine encodes it (PHP `json_encode` with UNESCAPED_SLASHES): `/` stays
 * literal and every non-ASCII UTF-16 unit is written as a lower-case `\uXXXX` escape.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || value === undefined) return "null";
  if (typeof value === "string") return encodeString(value);
  if (typeof value === "number") return Number.isFinite(value) ? JSON.stringify(value) : "null";
  if (typeof value === "boolean") return value ? "true" : "false";
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (typeof value === "object") {
    const obj = value as Record<string, unknown>;
    const keys = Object.keys(obj)
      .filter((k) => obj[k] !== undefined)
      .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${keys.map((k) => `${encodeString(k)}:${canonicalJson(obj[k])}`).join(",")}}`;
  }
  return "null";
}

function encodeString(s: string): string {
  return JSON.stringify(s).replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

export function sha256Hex(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

export function hmacSha256Hex(key: string, text: string): string {
  return createHmac("sha256", key).update(text, "utf8").digest("hex");
}
