/**
 * The workflow list's visibility queries, as durable-workflow/server app/Support/WorkflowVisibilityQuery.php
 * @ca70b5e reads `?query=` (the `index` of WorkflowController@042e8da hands it over first): predicates
 * `Field op literal`, `Field IN (…)`, `NOT …` and a bare bool field, joined by AND; anything that
 * does not look like one stays the legacy workflow-id / business-key search. Errors are the 422
 * `query` messages of that class. @11d35b7 has no such parser (its `query` is only the substring
 * search); docs/contract.md says which server the twin follows here.
 */
import { validationError } from "../engine/errors";

export type Operator = "=" | "!=" | ">" | ">=" | "<" | "<=" | "IN" | "NOT IN";
export type Literal = string | number | boolean;

export interface Comparison {
  field: string;
  operator: Operator;
  literal: Literal | Literal[];
  /** A bare `Field` (true) or `NOT Field` (false): allowed only on bool attributes. */
  bare?: boolean;
  /** An integer literal, as PHP's `(int)` / `(float)` parse tells them apart. */
  integer?: boolean | boolean[];
}

const invalid = (message: string) => validationError({ query: [message] });

const FIELD = "[A-Za-z][A-Za-z0-9_]*";

/** `looksLikeVisibilityQuery`: a comparison, an IN list, or a leading / AND-joined NOT. */
export function looksLikeVisibilityQuery(query: string): boolean {
  return (
    new RegExp(`\\b${FIELD}\\s*(=|!=|>=|<=|>|<)\\s*`).test(query) ||
    new RegExp(`\\b${FIELD}\\s+IN\\s*\\(`, "i").test(query) ||
    new RegExp(`(?:^|\\bAND\\s+)NOT\\s+${FIELD}\\b`, "i").test(query)
  );
}

/** Splits on `sep` (a predicate, at top level outside quotes) — null when a part is empty or a quote is open. */
function splitOutsideQuotes(text: string, isSeparatorAt: (i: number) => number): string[] | null {
  const parts: string[] = [];
  let current = "";
  let quote: string | null = null;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charAt(i);
    if (quote !== null) {
      current += ch;
      if (ch === "\\" && i + 1 < text.length) current += text.charAt(++i);
      else if (ch === quote) quote = null;
      continue;
    }
    if (ch === '"' || ch === "'") {
      quote = ch;
      current += ch;
      continue;
    }
    const skip = isSeparatorAt(i);
    if (skip > 0) {
      if (current.trim() === "") return null;
      parts.push(current.trim());
      current = "";
      i += skip - 1;
      continue;
    }
    current += ch;
  }
  if (quote !== null || current.trim() === "") return null;
  parts.push(current.trim());
  return parts;
}

const WORD = /[A-Za-z0-9_]/;

function andAt(query: string, i: number): number {
  if (query.slice(i, i + 3).toLowerCase() !== "and") return 0;
  const before = i === 0 ? " " : query.charAt(i - 1);
  const after = i + 3 >= query.length ? " " : query.charAt(i + 3);
  return WORD.test(before) || WORD.test(after) ? 0 : 3;
}

/** PHP's `stripcslashes` for the escapes a query can hold. */
function unescape(s: string): string {
  const map: Record<string, string> = { n: "\n", t: "\t", r: "\r", v: "\v", f: "\f", a: "\x07", b: "\b", "0": "\0" };
  return s.replace(/\\(.)/gs, (_m, c: string) => map[c] ?? c);
}

type Parsed = { value: Literal; integer: boolean } | null;

/** `parseLiteral`: quoted string, true/false, integer, float, or a bare token `[A-Za-z0-9_.:-]+`. */
function parseLiteral(raw: string): Parsed {
  const t = raw.trim();
  if (t === "") return null;
  const q = t.charAt(0);
  if ((q === '"' || q === "'") && t.length >= 2 && t.endsWith(q))
    return { value: unescape(t.slice(1, -1)), integer: false };
  const lower = t.toLowerCase();
  if (lower === "true") return { value: true, integer: false };
  if (lower === "false") return { value: false, integer: false };
  if (/^[+-]?\d+$/.test(t)) return { value: Number(t), integer: true };
  if (/^[+-]?(?:\d+\.\d*|\.\d+|\d+[eE][+-]?\d+|\d+\.\d*[eE][+-]?\d+|\.\d+[eE][+-]?\d+)$/.test(t))
    return { value: Number(t), integer: false };
  if (/^[A-Za-z0-9_.:-]+$/.test(t)) return { value: t, integer: false };
  return null;
}

const INVERSE: Record<Operator, Operator> = {
  "=": "!=",
  "!=": "=",
  ">": "<=",
  ">=": "<",
  "<": ">=",
  "<=": ">",
  IN: "NOT IN",
  "NOT IN": "IN",
};

function parsePredicate(part: string): Comparison | null {
  const p = part.trim();
  const not = /^NOT\s+(.+)$/is.exec(p);
  if (not) {
    const inner = parsePredicate(not[1] ?? "");
    if (!inner) return null;
    if (inner.bare && inner.operator === "=") return { ...inner, literal: false };
    return { ...inner, operator: INVERSE[inner.operator] };
  }
  const cmp = new RegExp(`^(${FIELD})\\s*(=|!=|>=|<=|>|<)\\s*(.+)$`, "s").exec(p);
  if (cmp) {
    const lit = parseLiteral(cmp[3] ?? "");
    if (!lit) throw invalid(`Visibility query literal [${(cmp[3] ?? "").trim()}] is not valid.`);
    return { field: cmp[1] ?? "", operator: cmp[2] as Operator, literal: lit.value, integer: lit.integer };
  }
  const inList = new RegExp(`^(${FIELD})\\s+IN\\s*\\((.*)\\)$`, "is").exec(p);
  if (inList) {
    const items = splitOutsideQuotes(inList[2] ?? "", (i) => ((inList[2] ?? "").charAt(i) === "," ? 1 : 0));
    const parsed = items?.map(parseLiteral);
    if (!parsed || parsed.length === 0 || parsed.some((x) => x === null))
      throw invalid(`Visibility query literal list [${(inList[2] ?? "").trim()}] is not valid.`);
    const ok = parsed as { value: Literal; integer: boolean }[];
    return {
      field: inList[1] ?? "",
      operator: "IN",
      literal: ok.map((x) => x.value),
      integer: ok.map((x) => x.integer),
    };
  }
  if (new RegExp(`^${FIELD}$`).test(p)) return { field: p, operator: "=", literal: true, bare: true };
  return null;
}

/** The query's AND-ed comparisons, or null when it is a plain search term (legacy substring search). */
export function parseVisibilityQuery(query: string): Comparison[] | null {
  const q = query.trim();
  if (!looksLikeVisibilityQuery(q)) return null;
  const parts = splitOutsideQuotes(q, (i) => andAt(q, i));
  if (!parts) throw invalid("Visibility query predicates must use: Field = literal.");
  return parts.map((part) => {
    const c = parsePredicate(part);
    if (!c) throw invalid("Visibility query predicates must use: Field = literal.");
    return c;
  });
}
