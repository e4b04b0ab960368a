import { createHash, createHmac } from "node:crypto";

/** Characters buffered before a chunk goes to the sink; keeps memory flat for very large bundles. */
const FLUSH_AT = 1 << 16;
const NON_ASCII = /[\u0080-\uffff]/;
const NON_ASCII_ALL = /[\u0080-\uffff]/g;

function encodeString(s: string): string {
  const json = JSON.stringify(s);
  return NON_ASCII.test(json)
    ? json.replace(NON_ASCII_ALL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`)
    : json;
}

function compareKeys(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Writes `json-recursive-ksort-v1` text in chunks to `sink`, so a 50,000-event bundle is hashed
 * without first materialising its canonical text as one string (nested `join`s copied it at every
 * level).
 */
function writeCanonical(root: unknown, sink: (chunk: string) => void): void {
  let buf = "";
  const write = (value: unknown): void => {
    if (value === null || value === undefined) buf += "null";
    else if (typeof value === "string") buf += encodeString(value);
    else if (typeof value === "number") buf += Number.isFinite(value) ? JSON.stringify(value) : "null";
    else if (typeof value === "boolean") buf += value ? "true" : "false";
    else if (Array.isArray(value)) {
      buf += "[";
      for (let i = 0; i < value.length; i++) {
        if (i > 0) buf += ",";
        write(value[i]);
      }
      buf += "]";
    } else if (typeof value === "object") {
      const obj = value as Record<string, unknown>;
      const keys = Object.keys(obj)
        .filter((k) => obj[k] !== undefined)
        .sort(compareKeys);
      buf += "{";
      for (let i = 0; i < keys.length; i++) {
        const k = keys[i] as string;
        if (i > 0) buf += ",";
        buf += encodeString(k);
        buf += ":";
        write(obj[k]);
      }
      buf += "}";
    } else buf += "null";
    if (buf.length >= FLUSH_AT) {
      sink(buf);
      buf = "";
    }
  };
  write(root);
  if (buf.length > 0) sink(buf);
}

/**
 * `json-recursive-ksort-v1`: objects with keys sorted recursively (lists keep their order), encoded
 * the way the reference engine encodes it (PHP `json_encode` with UNESCAPED_SLASHES): `/` stays
 * literal and every non-ASCII UTF-16 unit is written as a lower-case `\uXXXX` escape.
 */
export function canonicalJson(value: unknown): string {
  const parts: string[] = [];
  writeCanonical(value, (chunk) => parts.push(chunk));
  return parts.join("");
}

/**
 * SHA-256 of the canonical text, and its HMAC-SHA256 when a key is given, computed over the text
 * as it is written. The text is pure ASCII (every non-ASCII unit is escaped), so chunk boundaries
 * cannot split a UTF-8 sequence and the digests equal those of the whole string.
 */
export function canonicalDigests(
  value: unknown,
  hmacKey: string | null,
): { sha256: string; hmacSha256: string | null } {
  const hash = createHash("sha256");
  const hmac = hmacKey === null ? null : createHmac("sha256", hmacKey);
  writeCanonical(value, (chunk) => {
    hash.update(chunk, "utf8");
    hmac?.update(chunk, "utf8");
  });
  return { sha256: hash.digest("hex"), hmacSha256: hmac ? hmac.digest("hex") : null };
}
