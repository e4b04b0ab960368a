import { withBasePath } from "@/lib/http/base-path";

/**
 * History payloads keep codec blobs encoded (`arguments`, `result`, …). The console server decodes
 * them for display (`POST /api/payload/decode`, lib/dw/payload-display.ts): the codec cannot run in
 * the page, whose CSP forbids the code generation avsc relies on. Blobs come back as `{ decoded }`.
 */
export async function decodePayloadTree(payload: unknown, signal?: AbortSignal): Promise<unknown> {
  const response = await fetch(withBasePath("/api/payload/decode"), {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ payload }),
    signal,
  });
  if (!response.ok) throw new Error(`payload decode: HTTP ${response.status}`);
  const body = (await response.json()) as { tree?: unknown };
  return body.tree;
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
