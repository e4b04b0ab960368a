import { EngineError } from "../../engine";
import { OVERLAP_POLICIES } from "../../engine/schedule-rows";

/**
 * The schedule controller's Laravel validation rules (durable-workflow/server
 * app/Http/Controllers/Api/ScheduleController.php@11d35b7 `storeRules`/`updateRules`, `pause`,
 * `trigger`, `backfill`) with Laravel's own messages, so a 422 names the same keys with the same
 * words. Only validated keys survive, as `$request->validate()` returns them.
 */

type Rule =
  | "required"
  | "nullable"
  | "string"
  | "array"
  | "integer"
  | "boolean"
  | "date"
  | `max:${number}`
  | `min:${number}`
  | "in:overlap"
  | `required_with:${string}`;

type Rules = Record<string, Rule[]>;

const ACTION_RULES: Rules = {
  "action.task_queue": ["nullable", "string"],
  "action.input": ["nullable", "array"],
  "action.execution_timeout_seconds": ["nullable", "integer", "min:1"],
  "action.run_timeout_seconds": ["nullable", "integer", "min:1"],
  "action.workflow_execution_timeout": ["nullable", "integer", "min:1"],
  "action.workflow_run_timeout": ["nullable", "integer", "min:1"],
};

const SPEC_RULES: Rules = {
  "spec.cron_expressions": ["nullable", "array"],
  "spec.cron_expressions.*": ["string"],
  "spec.intervals": ["nullable", "array"],
  "spec.intervals.*.every": ["required_with:spec.intervals", "string", "max:64"],
  "spec.intervals.*.offset": ["nullable", "string", "max:64"],
  "spec.timezone": ["nullable", "string", "max:64"],
};

const COMMON: Rules = {
  overlap_policy: ["nullable", "string", "in:overlap"],
  jitter_seconds: ["nullable", "integer", "min:0", "max:3600"],
  max_runs: ["nullable", "integer", "min:1"],
  memo: ["nullable", "array"],
  search_attributes: ["nullable", "array"],
  note: ["nullable", "string", "max:1000"],
};

export const STORE_RULES: Rules = {
  schedule_id: ["nullable", "string", "max:128"],
  spec: ["required", "array"],
  ...SPEC_RULES,
  action: ["required", "array"],
  "action.workflow_type": ["required", "string"],
  ...ACTION_RULES,
  ...COMMON,
  paused: ["nullable", "boolean"],
};

export const UPDATE_RULES: Rules = {
  spec: ["nullable", "array"],
  ...SPEC_RULES,
  action: ["nullable", "array"],
  "action.workflow_type": ["nullable", "string"],
  ...ACTION_RULES,
  ...COMMON,
};

export const NOTE_RULES: Rules = { note: ["nullable", "string", "max:1000"] };
export const TRIGGER_RULES: Rules = { overlap_policy: ["nullable", "string", "in:overlap"] };
export const BACKFILL_RULES: Rules = {
  start_time: ["required", "date"],
  end_time: ["required", "date"],
  overlap_policy: ["nullable", "string", "in:overlap"],
};

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null;
const isInt = (v: unknown) =>
  (typeof v === "number" && Number.isInteger(v)) || (typeof v === "string" && /^-?\d+$/.test(v));

/** Every concrete path a rule key names (`*` expands over the list or map present in the body). */
function expand(body: unknown, key: string): { path: string; value: unknown; present: boolean }[] {
  let nodes: { path: string[]; value: unknown; present: boolean }[] = [{ path: [], value: body, present: true }];
  for (const part of key.split(".")) {
    const next: typeof nodes = [];
    for (const n of nodes) {
      if (part === "*") {
        if (isObj(n.value))
          for (const [k, v] of Object.entries(n.value)) next.push({ path: [...n.path, k], value: v, present: true });
      } else {
        const present = n.present && isObj(n.value) && part in n.value;
        next.push({
          path: [...n.path, part],
          value: present ? (n.value as Record<string, unknown>)[part] : undefined,
          present,
        });
      }
    }
    nodes = next;
  }
  return nodes.map((n) => ({ path: n.path.join("."), value: n.value, present: n.present }));
}

const attr = (path: string) => path.replace(/_/g, " ");

function check(rule: Rule, path: string, value: unknown, body: unknown): string | null {
  const a = attr(path);
  if (rule === "string") return typeof value === "string" ? null : `The ${a} field must be a string.`;
  if (rule === "array") return isObj(value) ? null : `The ${a} field must be an array.`;
  if (rule === "integer") return isInt(value) ? null : `The ${a} field must be an integer.`;
  if (rule === "boolean")
    return [true, false, 0, 1, "0", "1"].includes(value as never) ? null : `The ${a} field must be true or false.`;
  if (rule === "date")
    return typeof value === "string" && !Number.isNaN(Date.parse(value))
      ? null
      : `The ${a} field must be a valid date.`;
  if (rule === "in:overlap")
    return (OVERLAP_POLICIES as readonly unknown[]).includes(value) ? null : `The selected ${a} is invalid.`;
  if (rule.startsWith("max:") || rule.startsWith("min:")) {
    const bound = Number(rule.slice(4));
    const isMax = rule.startsWith("max:");
    const size = typeof value === "string" && !isInt(value) ? value.length : Number(value);
    const unit = typeof value === "string" && !isInt(value) ? " characters" : "";
    if (isMax && size > bound) return `The ${a} field must not be greater than ${bound}${unit}.`;
    if (!isMax && size < bound) return `The ${a} field must be at least ${bound}${unit}.`;
    return null;
  }
  void body;
  return null;
}

/** Validates `body` against `rules`; throws the 422 `validation_failed` answer, or returns the validated keys. */
export function validateBody(rules: Rules, raw: unknown): Record<string, unknown> {
  const body = isObj(raw) ? raw : {};
  const errors: Record<string, string[]> = {};
  const out: Record<string, unknown> = {};
  for (const [key, list] of Object.entries(rules)) {
    for (const { path, value, present } of expand(body, key)) {
      // PHP decodes `{}` and `[]` alike to an empty array, which `required` refuses.
      const missing = !present || value === null || value === "" || (isObj(value) && Object.keys(value).length === 0);
      const requiredWith = list.find((r) => r.startsWith("required_with:"))?.slice("required_with:".length);
      const required =
        list.includes("required") ||
        (requiredWith !== undefined && expand(body, requiredWith).some((n) => n.present && n.value != null));
      if (missing) {
        if (required)
          errors[path] = [
            `The ${attr(path)} field is required${requiredWith ? ` when ${attr(requiredWith)} is present` : ""}.`,
          ];
        else if (present && (list.includes("nullable") || value === null)) setPath(out, path, value);
        continue;
      }
      const problem = list.map((r) => check(r, path, value, body)).find((m) => m !== null);
      if (problem) errors[path] = [problem];
      else setPath(out, path, value);
    }
  }
  const messages = Object.values(errors).flat();
  if (messages.length > 0) {
    const more = messages.length - 1;
    const message = more > 0 ? `${messages[0]} (and ${more} more error${more > 1 ? "s" : ""})` : messages[0]!;
    throw new EngineError(422, "validation_failed", message, { errors, validation_errors: errors });
  }
  return out;
}

/** Sets a dotted path; a parent already set to a scalar (an array rule's value) is replaced by its validated children. */
function setPath(target: Record<string, unknown>, path: string, value: unknown): void {
  const parts = path.split(".");
  let node = target;
  for (const part of parts.slice(0, -1)) {
    if (!isObj(node[part])) node[part] = {};
    node = node[part] as Record<string, unknown>;
  }
  const last = parts[parts.length - 1]!;
  // An array-valued key with child rules keeps only its validated children; without, the whole value.
  if (isObj(value) && isObj(node[last])) return;
  node[last] = isObj(value) ? structuredClone(value) : value;
}
