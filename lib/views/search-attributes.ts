/**
 * Search attributes as the screens show them: the registry's rows, a run's values rendered by their
 * registered type, and the runs list's attribute filters written in the list's visibility-query
 * syntax (durable-workflow/server WorkflowVisibilityQuery.php@ca70b5e; docs/contract.md).
 */

export interface Registry {
  system_attributes: Record<string, string>;
  custom_attributes: Record<string, string>;
}

export interface RegistryRow {
  name: string;
  type: string;
  system: boolean;
}

/** System attributes first in the server's order, then the custom ones by name (the server's order too). */
export function registryRows(registry: Registry): RegistryRow[] {
  return [
    ...Object.entries(registry.system_attributes).map(([name, type]) => ({ name, type, system: true })),
    ...Object.entries(registry.custom_attributes).map(([name, type]) => ({ name, type, system: false })),
  ];
}

export type TypedValue =
  | { kind: "datetime"; ms: number; raw: string }
  | { kind: "chips"; items: string[] }
  | { kind: "number"; value: number }
  | { kind: "bool"; value: boolean }
  | { kind: "text"; value: string }
  | { kind: "json"; value: unknown };

export interface TypedAttribute {
  name: string;
  /** The registered type, or null when the namespace registers no such name (or the registry is unknown). */
  type: string | null;
  value: TypedValue;
}

function isStringList(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((v) => typeof v === "string");
}

/** A value read by what it is, when no type says more: a date is never guessed from a string. */
function inferred(value: unknown): TypedValue {
  if (isStringList(value)) return { kind: "chips", items: value };
  if (typeof value === "number" && Number.isFinite(value)) return { kind: "number", value };
  if (typeof value === "boolean") return { kind: "bool", value };
  if (typeof value === "string") return { kind: "text", value };
  return { kind: "json", value };
}

/** A value by its registered type; one that does not fit the type is shown as it came (JSON). */
function byType(type: string, value: unknown): TypedValue {
  switch (type) {
    case "datetime": {
      const ms = typeof value === "string" ? Date.parse(value) : Number.NaN;
      return Number.isNaN(ms) ? { kind: "json", value } : { kind: "datetime", ms, raw: value as string };
    }
    case "keyword_list":
      return isStringList(value) ? { kind: "chips", items: value } : { kind: "json", value };
    case "keyword":
      return typeof value === "string" ? { kind: "chips", items: [value] } : { kind: "json", value };
    case "int":
    case "double":
      return typeof value === "number" && Number.isFinite(value) ? { kind: "number", value } : { kind: "json", value };
    case "bool":
      return typeof value === "boolean" ? { kind: "bool", value } : { kind: "json", value };
    case "text":
      return typeof value === "string" ? { kind: "text", value } : { kind: "json", value };
    default:
      return inferred(value);
  }
}

/** A run's `search_attributes`, by name, each typed by the namespace's registry when it names it. */
export function typedAttributes(values: unknown, registry: Registry | null): TypedAttribute[] {
  if (values === null || typeof values !== "object" || Array.isArray(values)) return [];
  return Object.entries(values as Record<string, unknown>)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, value]) => {
      const type = registry?.custom_attributes[name] ?? registry?.system_attributes[name] ?? null;
      return { name, type, value: type === null ? inferred(value) : byType(type, value) };
    });
}

export type FilterOperator = "=" | "!=" | ">" | ">=" | "<" | "<=";

/** What the server accepts per type: keyword and text only (in)equality, a keyword list only membership. */
export function operatorsFor(type: string): FilterOperator[] {
  switch (type) {
    case "int":
    case "double":
    case "datetime":
      return ["=", "!=", ">", ">=", "<", "<="];
    case "keyword_list":
      return ["="];
    default:
      return ["=", "!="];
  }
}

export type PredicateError = "value_required" | "not_integer" | "not_number" | "not_bool" | "not_datetime";

function quoted(value: string): string {
  return `"${value.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`;
}

/** One `Name op literal` predicate, its literal checked and written as the server parses it. */
export function attributePredicate(
  name: string,
  type: string,
  operator: FilterOperator,
  input: string,
): { ok: true; text: string } | { ok: false; error: PredicateError } {
  const value = input.trim();
  if (value === "") return { ok: false, error: "value_required" };
  let literal: string;
  switch (type) {
    case "int":
      if (!/^[+-]?\d+$/.test(value)) return { ok: false, error: "not_integer" };
      literal = value;
      break;
    case "double":
      if (!/^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/.test(value)) return { ok: false, error: "not_number" };
      literal = value;
      break;
    case "bool":
      if (!/^(true|false)$/i.test(value)) return { ok: false, error: "not_bool" };
      literal = value.toLowerCase();
      break;
    case "datetime":
      if (!/^\d{4}-\d{2}-\d{2}/.test(value) || Number.isNaN(Date.parse(value)))
        return { ok: false, error: "not_datetime" };
      literal = quoted(value);
      break;
    default:
      literal = quoted(value);
  }
  return { ok: true, text: `${name} ${operator} ${literal}` };
}

const WORD = /[A-Za-z0-9_]/;

/** The query's AND-joined parts outside quotes (the server's own split), trimmed. */
export function splitPredicates(query: string): string[] {
  const parts: string[] = [];
  let current = "";
  let quote: string | null = null;
  for (let i = 0; i < query.length; i++) {
    const ch = query.charAt(i);
    if (quote !== null) {
      current += ch;
      if (ch === "\\" && i + 1 < query.length) current += query.charAt(++i);
      else if (ch === quote) quote = null;
      continue;
    }
    if (ch === '"' || ch === "'") quote = ch;
    const and =
      query.slice(i, i + 3).toLowerCase() === "and" &&
      !WORD.test(i === 0 ? " " : query.charAt(i - 1)) &&
      !WORD.test(query.charAt(i + 3) || " ");
    if (and) {
      parts.push(current.trim());
      current = "";
      i += 2;
      continue;
    }
    current += ch;
  }
  parts.push(current.trim());
  return parts.filter((p) => p !== "");
}

/** The server's test for "this is a visibility query, not a search term" (looksLikeVisibilityQuery). */
export function isVisibilityQuery(query: string): boolean {
  const field = "[A-Za-z][A-Za-z0-9_]*";
  return (
    new RegExp(`\\b${field}\\s*(=|!=|>=|<=|>|<)\\s*`).test(query) ||
    new RegExp(`\\b${field}\\s+IN\\s*\\(`, "i").test(query) ||
    new RegExp(`(?:^|\\bAND\\s+)NOT\\s+${field}\\b`, "i").test(query)
  );
}

/**
 * The list's `q` with one more predicate. The server reads `query` as either a visibility query or a
 * plain search term, never both, so a plain term is replaced (and the caller says so).
 */
export function withPredicate(search: string, predicate: string): { query: string; replacedTerm: boolean } {
  const current = search.trim();
  if (current === "") return { query: predicate, replacedTerm: false };
  if (!isVisibilityQuery(current)) return { query: predicate, replacedTerm: true };
  return { query: `${current} AND ${predicate}`, replacedTerm: false };
}

/** The query without its `index`-th predicate. */
export function withoutPredicate(search: string, index: number): string {
  return splitPredicates(search)
    .filter((_, i) => i !== index)
    .join(" AND ");
}
