/**
 * Visibility-query comparisons (visibility-query.ts) as SQL over the list's summary rows `s` and the
 * typed projection `workflow_search_attributes` (migration 13), with the coercions and refusals of
 * durable-workflow/server app/Support/WorkflowVisibilityQuery.php@ca70b5e: system fields compare
 * summary columns, a registered custom attribute compares its typed value, an unregistered name
 * matches nothing.
 */
import { validationError } from "../engine/errors";
import { customSearchAttributes } from "../engine/search-attributes";
import type { Db } from "../store/db";
import type { Comparison, Literal } from "./visibility-query";

const SYSTEM_COLUMNS: Record<string, { column: string; type: "keyword" | "datetime" }> = {
  WorkflowType: { column: "s.workflow_type", type: "keyword" },
  WorkflowId: { column: "s.workflow_instance_id", type: "keyword" },
  RunId: { column: "s.id", type: "keyword" },
  TaskQueue: { column: "s.queue", type: "keyword" },
  BuildId: { column: "s.compatibility", type: "keyword" },
  BuildIds: { column: "s.compatibility", type: "keyword" },
  StartTime: { column: "s.started_at", type: "datetime" },
  ExecutionTime: { column: "s.started_at", type: "datetime" },
  CloseTime: { column: "s.closed_at", type: "datetime" },
};

type ValueType = "keyword" | "keyword_list" | "text" | "int" | "double" | "bool" | "datetime";

const COLUMN: Record<Exclude<ValueType, "keyword_list">, string> = {
  keyword: "a.value_keyword",
  text: "a.value_string",
  int: "a.value_int",
  double: "a.value_float",
  bool: "a.value_bool",
  datetime: "a.value_datetime",
};

const fail = (message: string) => validationError({ query: [message] });
const invalidValue = (field: string, expected: string) => fail(`[${field}] must be compared with ${expected}.`);

function assertEquality(operator: string, field: string): void {
  if (operator !== "=" && operator !== "!=") throw fail(`[${field}] only supports equality comparisons.`);
}

/** An ISO-8601 text without a zone is UTC, as Carbon reads it under the server's UTC zone. */
function parseDatetime(text: string): number {
  const local = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)?$/.test(text);
  return Date.parse(local ? `${text.replace(" ", "T")}${text.length > 10 ? "Z" : ""}` : text);
}

function coerce(literal: Literal, integer: boolean, type: ValueType, field: string): string | number {
  switch (type) {
    case "keyword":
    case "keyword_list":
    case "text":
      if (typeof literal === "boolean") return literal ? "true" : "false";
      return String(literal);
    case "int":
      if (typeof literal === "number" && integer) return literal;
      throw invalidValue(field, "an integer literal");
    case "double":
      if (typeof literal === "number") return literal;
      throw invalidValue(field, "a numeric literal");
    case "bool":
      if (typeof literal === "boolean") return literal ? 1 : 0;
      throw invalidValue(field, "a boolean literal");
    case "datetime": {
      const ms = typeof literal === "string" ? parseDatetime(literal) : Number.NaN;
      if (Number.isNaN(ms)) throw invalidValue(field, "a datetime literal");
      return ms;
    }
  }
}

function coerceList(c: Comparison, type: ValueType): (string | number)[] {
  if (!Array.isArray(c.literal) || c.literal.length === 0) throw invalidValue(c.field, "a non-empty literal list");
  const flags = Array.isArray(c.integer) ? c.integer : [];
  return c.literal.map((v, i) => coerce(v, flags[i] ?? false, type, c.field));
}

function coerceOne(c: Comparison, type: ValueType): string | number {
  if (Array.isArray(c.literal)) {
    if (type === "keyword" || type === "keyword_list" || type === "text")
      throw invalidValue(c.field, "a string literal");
    throw invalidValue(
      c.field,
      `${type === "int" ? "an integer" : type === "double" ? "a numeric" : type === "bool" ? "a boolean" : "a datetime"} literal`,
    );
  }
  return coerce(c.literal, c.integer === true, type, c.field);
}

export interface VisibilitySql {
  /** Conditions on `s`, AND-ed into the list's WHERE. */
  where: string[];
  /** Run ids of each positive custom comparison, from the projection's index (`@namespace` bound). */
  candidates: string[];
}

class Binder {
  private n = 0;
  constructor(readonly params: Record<string, unknown>) {}
  bind(value: unknown): string {
    const name = `v${this.n++}`;
    this.params[name] = value;
    return `@${name}`;
  }
  list(values: unknown[]): string {
    return values.map((v) => this.bind(v)).join(", ");
  }
}

function systemCondition(c: Comparison, b: Binder): string {
  if (c.field === "Status" || c.field === "ExecutionStatus") {
    if (Array.isArray(c.literal)) throw invalidValue("Status", "a string literal");
    const value = String(coerce(c.literal, false, "keyword", "Status")).toLowerCase();
    assertEquality(c.operator, "Status");
    const column = ["running", "completed", "failed"].includes(value) ? "s.status_bucket" : "s.status";
    return `${column} ${c.operator} ${b.bind(value)}`;
  }
  const col = SYSTEM_COLUMNS[c.field];
  if (!col) throw new Error(`not a system field: ${c.field}`);
  if (c.operator === "IN" || c.operator === "NOT IN")
    return `${col.column} ${c.operator} (${b.list(coerceList(c, col.type))})`;
  const value = coerceOne(c, col.type);
  if (col.type === "keyword") assertEquality(c.operator, c.field);
  return `${col.column} ${c.operator} ${b.bind(value)}`;
}

/** The condition on one projection row `a` of the attribute. */
function attributeCondition(c: Comparison, type: ValueType, b: Binder): string {
  if (c.bare && type !== "bool") throw invalidValue(c.field, "an explicit comparison");
  if (c.operator === "IN" || c.operator === "NOT IN") {
    const values = coerceList(c, type);
    if (type === "keyword_list") {
      if (c.operator === "NOT IN") throw fail("keyword_list search attributes do not support NOT IN comparisons.");
      return `EXISTS (SELECT 1 FROM json_each(a.value_keyword_list) m WHERE m.value IN (${b.list(values)}))`;
    }
    return `${COLUMN[type]} ${c.operator} (${b.list(values)})`;
  }
  const value = coerceOne(c, type);
  if (type === "keyword_list") {
    if (c.operator !== "=") throw fail("keyword_list search attributes only support membership equality comparisons.");
    return `EXISTS (SELECT 1 FROM json_each(a.value_keyword_list) m WHERE m.value = ${b.bind(value)})`;
  }
  if (type === "keyword") assertEquality(c.operator, "keyword search attribute");
  if (type === "text") assertEquality(c.operator, "text search attribute");
  return `${COLUMN[type]} ${c.operator} ${b.bind(value)}`;
}

function valueType(registered: string): ValueType {
  if (registered === "float") return "double";
  if (["keyword", "keyword_list", "text", "int", "double", "bool", "datetime"].includes(registered))
    return registered as ValueType;
  throw fail(`Search attribute type [${registered}] is not supported in visibility queries.`);
}

export function visibilitySql(
  db: Db,
  namespace: string,
  comparisons: Comparison[],
  params: Record<string, unknown>,
): VisibilitySql {
  const b = new Binder(params);
  const definitions = customSearchAttributes(db, namespace);
  const where: string[] = [];
  const candidates: string[] = [];
  for (const c of comparisons) {
    if (c.field === "Status" || c.field === "ExecutionStatus" || SYSTEM_COLUMNS[c.field]) {
      where.push(systemCondition(c, b));
      continue;
    }
    const registered = definitions[c.field];
    if (registered === undefined) {
      where.push("0");
      continue;
    }
    const type = valueType(registered);
    const key = b.bind(c.field);
    const cond = attributeCondition(c, type, b);
    where.push(
      `EXISTS (SELECT 1 FROM workflow_search_attributes a WHERE a.workflow_run_id = s.id AND a.key = ${key} AND ${cond})`,
    );
    const positive = c.operator !== "!=" && c.operator !== "NOT IN" && type !== "keyword_list";
    if (positive)
      candidates.push(
        `SELECT a.workflow_run_id FROM workflow_search_attributes a WHERE a.namespace = @namespace AND a.key = ${key} AND ${cond}`,
      );
  }
  return { where, candidates };
}
