/**
 * Editing one process variable, the seed guide's "fix the data, then retry". The engine's REST sets
 * variables with `PUT /process-instances/{id}/variables` `{variables: {name: {name, isTransient,
 * value}}}` (ProcessInstanceOperationsRestApi.setVariables → InMemoryKikwiEngineRepository.addVariables
 * @3b62f35), merging by name. Its answer is not the proof: for an unknown id it is a 200 with no body.
 * So the console reads the instance back and compares. Pure, zod-free and browser-safe.
 */

/** What Jackson makes of an untyped JSON value: String, Integer/Long/Double, Boolean, or a Map/List/null. */
export const VARIABLE_KINDS = ["string", "number", "boolean", "json"] as const;
export type VariableKind = (typeof VARIABLE_KINDS)[number];

/** The console's own bound on one value (the engine has none but Jackson's nesting depth of 1,000). */
export const MAX_VARIABLE_CHARS = 64 * 1024;
export const MAX_VARIABLE_NAME = 200;

export function kindOf(value: unknown): VariableKind {
  if (typeof value === "string") return "string";
  if (typeof value === "number") return "number";
  if (typeof value === "boolean") return "boolean";
  return "json";
}

/** The input's starting text for a value edited as `kind`. */
export function draftOf(value: unknown, kind: VariableKind): string {
  if (kind === "string") return typeof value === "string" ? value : JSON.stringify(value ?? null);
  if (kind === "boolean") return value === true || value === "true" ? "true" : "false";
  if (kind === "number") {
    if (typeof value === "number") return String(value);
    // A number stored as text ("10") is the usual bad data: offer it as the number it names.
    return typeof value === "string" && JSON_NUMBER.test(value.trim()) ? value.trim() : "";
  }
  return JSON.stringify(value ?? null, null, 2);
}

export const VARIABLE_PROBLEMS = [
  "number_syntax",
  "number_unsafe",
  "boolean",
  "json_syntax",
  "too_large",
  "unchanged",
  "name",
  "expected",
] as const;
export type VariableProblem = (typeof VARIABLE_PROBLEMS)[number];

export function isVariableProblem(value: unknown): value is VariableProblem {
  return (VARIABLE_PROBLEMS as readonly unknown[]).includes(value);
}

export type DraftResult =
  { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly problem: VariableProblem };

// JSON's number grammar: "1e3" and "-0.5" are numbers, "0x10", " 1", "Infinity" and "1." are not.
const JSON_NUMBER = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/;

/** A whole number past 2^53 would reach the engine rounded; a fraction is a Double on both sides. */
function numberProblem(value: number): VariableProblem | null {
  if (!Number.isFinite(value)) return "number_syntax";
  return Number.isInteger(value) && !Number.isSafeInteger(value) ? "number_unsafe" : null;
}

/** Every number inside a value, so a JSON object cannot carry an unsafe integer either. */
function firstNumberProblem(value: unknown): VariableProblem | null {
  if (typeof value === "number") return numberProblem(value);
  if (Array.isArray(value)) {
    for (const item of value) {
      const found = firstNumberProblem(item);
      if (found) return found;
    }
    return null;
  }
  if (value !== null && typeof value === "object") return firstNumberProblem(Object.values(value));
  return null;
}

function parseNumber(text: string): DraftResult {
  const trimmed = text.trim();
  if (!JSON_NUMBER.test(trimmed)) return { ok: false, problem: "number_syntax" };
  const value = Number(trimmed);
  const problem = numberProblem(value);
  return problem ? { ok: false, problem } : { ok: true, value };
}

function parseJson(text: string): DraftResult {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, problem: "json_syntax" };
  }
  const problem = firstNumberProblem(value);
  return problem ? { ok: false, problem } : { ok: true, value };
}

/** The typed value an input's text stands for, or why it cannot be sent. */
export function parseDraft(kind: VariableKind, text: string): DraftResult {
  if (text.length > MAX_VARIABLE_CHARS) return { ok: false, problem: "too_large" };
  if (kind === "string") return { ok: true, value: text };
  if (kind === "number") return parseNumber(text);
  if (kind === "boolean") {
    return text === "true" || text === "false"
      ? { ok: true, value: text === "true" }
      : { ok: false, problem: "boolean" };
  }
  return parseJson(text);
}

/** Equal as JSON values: key order does not matter, 1 and 1.0 are one number (as JSON.parse reads them). */
export function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== "object" || typeof b !== "object") return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((item, index) => sameValue(item, b[index]));
  }
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  const keys = Object.keys(left);
  return (
    keys.length === Object.keys(right).length &&
    keys.every((key) => Object.hasOwn(right, key) && sameValue(left[key], right[key]))
  );
}

// Bidi overrides (U+202E shows "evil" as "live"), zero-width and C1 characters reorder or hide text.
const INVISIBLE = /[\u0080-\u009f\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/g;

/**
 * A value as one line of compact JSON, so "1" the string and 1 the number read apart; invisible
 * and direction-changing characters appear as their JSON escapes, which is still the same value.
 */
export function displayValue(value: unknown): string {
  return visibleText(JSON.stringify(value ?? null) ?? "null");
}

/** Text with its invisible and direction-changing characters written as `\\uXXXX` (a variable's name). */
export function visibleText(text: string): string {
  return text.replace(INVISIBLE, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** What an operator asks: set `name` to `value`, provided the engine still holds `expected`. */
export interface VariableEdit {
  readonly name: string;
  readonly value: unknown;
  /** The value the operator saw and confirmed as "old": a change made since is not overwritten. */
  readonly expected: unknown;
}

export type EditRequestResult =
  { readonly ok: true; readonly edit: VariableEdit } | { readonly ok: false; readonly problem: VariableProblem };

/** The console route's body, checked as the form checks it (a direct POST gets the same rules). */
export function parseEditRequest(body: unknown): EditRequestResult {
  if (body === null || typeof body !== "object") return { ok: false, problem: "name" };
  const { name, value, expected } = body as Record<string, unknown>;
  if (typeof name !== "string" || name === "" || name.length > MAX_VARIABLE_NAME) return { ok: false, problem: "name" };
  if (!Object.hasOwn(body, "value")) return { ok: false, problem: "json_syntax" };
  if (!Object.hasOwn(body, "expected")) return { ok: false, problem: "expected" };
  if (displayValue(value).length > MAX_VARIABLE_CHARS) return { ok: false, problem: "too_large" };
  const problem = firstNumberProblem(value);
  if (problem) return { ok: false, problem };
  if (sameValue(value, expected)) return { ok: false, problem: "unchanged" };
  return { ok: true, edit: { name, value, expected } };
}

/** What the read-back of the instance found for the edited variable. */
export type VariableEditVerdict =
  | { readonly phase: "confirmed" }
  /** The engine holds another value (a task's commit raced the edit, or another operator's). */
  | { readonly phase: "differs"; readonly now: unknown }
  | { readonly phase: "missing" }
  /** The instance is gone from the live store (finished or cancelled) before the read-back. */
  | { readonly phase: "gone" };

export function judgeVariableEdit(
  sent: unknown,
  variables: Readonly<Record<string, { readonly value?: unknown } | undefined>> | null | undefined,
  name: string,
): VariableEditVerdict {
  const variable = variables?.[name];
  if (!variable) return { phase: "missing" };
  return sameValue(variable.value, sent) ? { phase: "confirmed" } : { phase: "differs", now: variable.value ?? null };
}

/** What the console's route answers (app/api/kikwiflow/instances/[id]/variables). */
export type VariableEditAnswer =
  | {
      result: "accepted";
      instanceId: string;
      name: string;
      before: unknown;
      value: unknown;
      verdict: VariableEditVerdict;
      elapsedMs: number;
    }
  | {
      result: "rejected";
      instanceId: string;
      name: string;
      httpStatus: 409;
      /** What the engine holds now; absent when the variable no longer exists. */
      current?: unknown;
      message: string;
    }
  | {
      /** The engine answered the PUT with a 4xx: it would not take this value. */
      result: "refused";
      instanceId: string;
      name: string;
      httpStatus: number;
      engineMessage: string;
      /** A read after the refusal found the old value still there. */
      kept: boolean;
    };
