/**
 * JSON "shapes" and their differences, for the structural contract test: which keys an answer has,
 * which JSON types each key takes and whether it can be null — never the values themselves.
 *
 * Samples are merged: every element of an array, and (for arrays of typed rows — history events,
 * timeline entries) every row of the same `type`/`event_type`, contribute to one shape, so a key is
 * "nullable" when any sample held null. PHP renders an empty map as `[]`; an empty array or object
 * is therefore "empty" and fits either.
 */

export type JsonType = "null" | "string" | "number" | "boolean" | "object" | "array" | "empty";

export interface Shape {
  types: Set<JsonType>;
  /** Keys of object samples. */
  keys: Map<string, Shape>;
  /** Element shape of untyped array samples. */
  items: Shape | null;
  /** Element shapes of typed-row arrays, by row type. */
  rows: Map<string, Shape> | null;
}

function emptyShape(): Shape {
  return { types: new Set(), keys: new Map(), items: null, rows: null };
}

function rowType(value: unknown): string | null {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return null;
  const record = value as Record<string, unknown>;
  const type = record.type ?? record.event_type;
  return typeof type === "string" ? type : null;
}

function jsonType(value: unknown): JsonType {
  if (value === null) return "null";
  if (Array.isArray(value)) return value.length === 0 ? "empty" : "array";
  if (typeof value === "object") return Object.keys(value).length === 0 ? "empty" : "object";
  if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") return typeof value as JsonType;
  throw new Error(`not JSON: ${typeof value}`);
}

/** Adds one sample to a shape. */
export function addSample(shape: Shape, value: unknown): Shape {
  const type = jsonType(value);
  shape.types.add(type);
  if (type === "object") {
    for (const [key, child] of Object.entries(value as Record<string, unknown>)) {
      addSample(shape.keys.get(key) ?? setKey(shape, key), child);
    }
  } else if (type === "array") {
    const elements = value as unknown[];
    if (elements.every((element) => rowType(element) !== null)) {
      shape.rows ??= new Map();
      for (const element of elements) {
        const key = rowType(element) as string;
        const row = shape.rows.get(key) ?? emptyShape();
        shape.rows.set(key, addSample(row, element));
      }
    } else {
      shape.items ??= emptyShape();
      for (const element of elements) addSample(shape.items, element);
    }
  }
  return shape;
}

function setKey(shape: Shape, key: string): Shape {
  const child = emptyShape();
  shape.keys.set(key, child);
  return child;
}

export function shapeOf(value: unknown): Shape {
  return addSample(emptyShape(), value);
}

export interface ShapeOptions {
  /** JSON paths (`$.a.b`, `$.rows[Type].c`) whose content is data, not structure: only the type is compared. */
  opaque?: readonly string[];
}

const VALUE_TYPES: readonly JsonType[] = ["string", "number", "boolean", "object", "array"];

function describeTypes(types: Iterable<JsonType>): string {
  return [...types].sort().join("|");
}

/**
 * Where `embedded` differs from `real`: keys only one has, value types the real one never takes,
 * null where the real one is never null. Each difference is `<path>: <what>`.
 */
export function shapeDifferences(real: Shape, embedded: Shape, options: ShapeOptions = {}, path = "$"): string[] {
  const out: string[] = [];
  const realValues = VALUE_TYPES.filter((t) => real.types.has(t));
  const embeddedValues = VALUE_TYPES.filter((t) => embedded.types.has(t));
  const fits = (t: JsonType) => real.types.has(t) || ((t === "object" || t === "array") && real.types.has("empty"));
  const strange = embeddedValues.filter((t) => !fits(t));
  if (realValues.length > 0 && strange.length > 0) {
    out.push(`${path}: type ${describeTypes(embedded.types)} where the real server sends ${describeTypes(real.types)}`);
  }
  if (embedded.types.has("null") && !real.types.has("null") && (realValues.length > 0 || real.types.has("empty"))) {
    out.push(`${path}: null where the real server sends ${describeTypes(real.types)}`);
  }
  if (options.opaque?.includes(path)) return out;

  if (real.keys.size > 0 && embedded.keys.size > 0) {
    for (const [key, realChild] of real.keys) {
      const embeddedChild = embedded.keys.get(key);
      if (!embeddedChild) out.push(`${path}.${key}: missing (the real server sends ${describeTypes(realChild.types)})`);
      else out.push(...shapeDifferences(realChild, embeddedChild, options, `${path}.${key}`));
    }
    for (const [key, embeddedChild] of embedded.keys) {
      if (!real.keys.has(key)) out.push(`${path}.${key}: not sent by the real server (embedded sends ${describeTypes(embeddedChild.types)})`);
    }
  }
  if (real.items && embedded.items) out.push(...shapeDifferences(real.items, embedded.items, options, `${path}[]`));
  if (real.rows && embedded.rows) {
    for (const [type, realRow] of real.rows) {
      const embeddedRow = embedded.rows.get(type);
      if (!embeddedRow) out.push(`${path}[${type}]: no such row from the embedded server`);
      else out.push(...shapeDifferences(realRow, embeddedRow, options, `${path}[${type}]`));
    }
    for (const type of embedded.rows.keys()) {
      if (!real.rows.has(type)) out.push(`${path}[${type}]: row not written by the real server in this scenario`);
    }
  }
  return out;
}
