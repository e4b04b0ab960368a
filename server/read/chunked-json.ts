import { createHash, createHmac } from "node:crypto";
import { Readable } from "node:stream";
import { canonicalJson } from "./canonical-json";
import type { Steps } from "./time-slice";
import { slicedChunks } from "./time-slice";

/*
 * Encoders for one large document (the export bundle) that work element by element, so a driver
 * can pause between elements. They descend only into the top of the tree — the root, its objects
 * and the lists under them (history events, timeline, activities, manifest entries…) — and encode
 * each element below that in one call, whose cost is bounded by one element's size.
 */

/** Characters gathered before they are hashed or sent: fewer, larger writes. */
const CHUNK_CHARS = 1 << 16;

/** Lists are split up to this depth (root = 0): `payload_manifest.entries`, `links.parents` sit at 2. */
const MAX_LIST_DEPTH = 2;
/** Objects are split up to this depth: the root and its direct children. */
const MAX_OBJECT_DEPTH = 1;

function compareKeys(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * `canonicalDigests` (sha256 and optional HMAC of the `json-recursive-ksort-v1` text) computed
 * element by element. The text equals `canonicalJson(root)`: objects are split with the same key
 * filter and order, lists in order, and every element is encoded by `canonicalJson` itself.
 */
export function* canonicalDigestSteps(
  root: unknown,
  hmacKey: string | null,
): Steps<{ sha256: string; hmacSha256: string | null }> {
  const hash = createHash("sha256");
  const hmac = hmacKey === null ? null : createHmac("sha256", hmacKey);
  let buf = "";
  const flush = (): void => {
    hash.update(buf, "utf8");
    hmac?.update(buf, "utf8");
    buf = "";
  };
  function* walk(value: unknown, depth: number): Steps<void> {
    if (Array.isArray(value) && depth <= MAX_LIST_DEPTH) {
      buf += "[";
      for (let i = 0; i < value.length; i++) {
        if (i > 0) buf += ",";
        yield* walk(value[i], depth + 1);
      }
      buf += "]";
    } else if (value !== null && typeof value === "object" && !Array.isArray(value) && depth <= MAX_OBJECT_DEPTH) {
      const obj = value as Record<string, unknown>;
      const keys = Object.keys(obj)
        .filter((k) => obj[k] !== undefined)
        .sort(compareKeys);
      buf += "{";
      for (let i = 0; i < keys.length; i++) {
        const k = keys[i] as string;
        if (i > 0) buf += ",";
        buf += canonicalJson(k);
        buf += ":";
        yield* walk(obj[k], depth + 1);
      }
      buf += "}";
    } else {
      buf += canonicalJson(value);
      if (buf.length >= CHUNK_CHARS) flush();
      yield;
    }
  }
  yield* walk(root, 0);
  flush();
  return { sha256: hash.digest("hex"), hmacSha256: hmac ? hmac.digest("hex") : null };
}

/** A list or plain object `JSON.stringify` would walk itself (no `toJSON` to call first). */
function splittable(value: unknown, depth: number): boolean {
  if (value === null || typeof value !== "object") return false;
  if (typeof (value as { toJSON?: unknown }).toJSON === "function") return false;
  return Array.isArray(value) ? depth <= MAX_LIST_DEPTH : depth <= MAX_OBJECT_DEPTH;
}

/**
 * The text of `JSON.stringify(root)` in chunks of about `CHUNK_CHARS` (`undefined` between them
 * marks a pause point). Split levels follow `JSON.stringify`'s rules: own enumerable keys in
 * order, values it drops (undefined, functions, symbols) left out of objects and `null` in lists.
 */
export function* jsonChunks(root: unknown): Generator<string | undefined, void, undefined> {
  let buf = "";
  function* walk(value: unknown, depth: number): Generator<string | undefined, void, undefined> {
    if (Array.isArray(value)) {
      buf += "[";
      for (let i = 0; i < value.length; i++) {
        if (i > 0) buf += ",";
        yield* element(value[i], depth + 1, null);
      }
      buf += "]";
      return;
    }
    const obj = value as Record<string, unknown>;
    buf += "{";
    let first = true;
    for (const k of Object.keys(obj)) {
      const v = obj[k];
      const prefix = `${first ? "" : ","}${JSON.stringify(k)}:`;
      if (yield* element(v, depth + 1, prefix)) first = false;
    }
    buf += "}";
  }
  /** Writes one value (after `prefix` when it is an object member); false when JSON drops it. */
  function* element(
    value: unknown,
    depth: number,
    prefix: string | null,
  ): Generator<string | undefined, boolean, undefined> {
    if (splittable(value, depth)) {
      if (prefix !== null) buf += prefix;
      yield* walk(value, depth);
      return true;
    }
    const text = JSON.stringify(value) as string | undefined;
    if (text === undefined && prefix !== null) return false;
    if (prefix !== null) buf += prefix;
    buf += text ?? "null";
    if (buf.length >= CHUNK_CHARS) {
      const out = buf;
      buf = "";
      yield out;
    } else yield undefined;
    return true;
  }
  if (splittable(root, 0)) yield* walk(root, 0);
  else buf = JSON.stringify(root) ?? "";
  if (buf.length > 0) yield buf;
}

/** `JSON.stringify(root)` as a byte stream produced in time slices, for `reply.send`. */
export function jsonStream(root: unknown): Readable {
  return Readable.from(slicedChunks(jsonChunks(root)), { objectMode: false });
}
