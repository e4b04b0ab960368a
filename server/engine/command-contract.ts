import { decodeBlob } from "../codec/codec";
import type { PayloadValue } from "../codec/codec";
import type { JsonObject, PayloadEnvelope, Tx } from "./tx";

/**
 * A run's durable command contract — the signals (and queries, updates) its workflow declares —
 * and signal admission against it.
 *
 * Source: an external worker registers `workflow_command_contracts` per workflow type (sdk-python
 * @b15778e worker.py `_workflow_command_contract`); a control-plane start copies the contract of a
 * fresh, active, unversioned worker on the run's queue that supports the type into the run's
 * `WorkflowStarted` payload as `declared_*` (durable-workflow/server@205c046
 * app/Support/WorkflowStartService.php `enrichStartedEventWithExternalCommandContract`). Admission
 * reads it back as the engine does (durable-workflow/workflow@8dc90d6 src/V2/Support/
 * RunCommandContract.php, src/V2/WorkflowStub.php `signalAdmissionForRun`,
 * `validatedSignalArgumentsForRun`): without a strict durable contract, a signal to a type this
 * server cannot load is admitted (`external_contract_unavailable`).
 */

export const SOURCE_DURABLE_HISTORY = "durable_history";
export const SOURCE_UNAVAILABLE = "unavailable";

const STRICT_KEYS = [
  "declared_queries",
  "declared_query_contracts",
  "declared_signals",
  "declared_signal_contracts",
  "declared_updates",
  "declared_update_contracts",
  "declared_entry_method",
  "declared_entry_mode",
  "declared_entry_declaring_class",
] as const;

export interface CommandParameter {
  name: string;
  required?: boolean;
  variadic?: boolean;
  default_available?: boolean;
  default?: unknown;
  type?: string | null;
  allows_null?: boolean | null;
}

export interface NamedContract {
  name: string;
  parameters: CommandParameter[];
}

export interface RunCommandContract {
  signals: string[];
  signal_contracts: NamedContract[];
  source: string;
  backfill_needed: boolean;
  backfill_available: boolean;
}

/** `stringList` of WorkflowStartService@205c046: trimmed, unique, sorted non-empty strings. */
function stringList(v: unknown): string[] {
  if (!Array.isArray(v)) return [];
  return [
    ...new Set(v.filter((x): x is string => typeof x === "string" && x.trim() !== "").map((x) => x.trim())),
  ].sort();
}

/** `contractList` of WorkflowStartService@205c046: named entries with a parameter list. */
function contractList(v: unknown): NamedContract[] {
  if (!Array.isArray(v)) return [];
  return v.filter(
    (c): c is NamedContract =>
      !!c &&
      typeof c === "object" &&
      typeof (c as JsonObject).name === "string" &&
      ((c as JsonObject).name as string).trim() !== "" &&
      Array.isArray((c as JsonObject).parameters),
  );
}

function nullableString(v: unknown): string | null {
  return typeof v === "string" && v.trim() !== "" ? v.trim() : null;
}

/**
 * `externalCommandContract` (WorkflowStartService.php@205c046): the newest-heartbeat fresh, active,
 * unversioned worker on the queue that lists the type and carries a contract for it.
 */
function registeredContract(
  tx: Tx,
  namespace: string,
  queue: string,
  workflowType: string,
  staleAfterMs: number,
): JsonObject | null {
  const rows = tx.db
    .prepare(
      `SELECT supported_workflow_types, workflow_command_contracts FROM worker_registrations
       WHERE namespace = ? AND task_queue = ? AND status = 'active' AND build_id IS NULL AND last_heartbeat_at >= ? AND workflow_command_contracts IS NOT NULL
       ORDER BY last_heartbeat_at DESC, worker_id DESC`,
    )
    .all(namespace, queue, tx.now - staleAfterMs) as {
    supported_workflow_types: string | null;
    workflow_command_contracts: string;
  }[];
  for (const row of rows) {
    if (!stringList(JSON.parse(row.supported_workflow_types ?? "[]")).includes(workflowType)) continue;
    const contract = (JSON.parse(row.workflow_command_contracts) as JsonObject)[workflowType];
    if (contract && typeof contract === "object" && !Array.isArray(contract)) return contract as JsonObject;
  }
  return null;
}

/** The `declared_*` keys a control-plane start adds to `WorkflowStarted`, or none without a registered contract. */
export function declaredContractPayload(
  tx: Tx,
  namespace: string,
  queue: string,
  workflowType: string,
  staleAfterMs: number,
): JsonObject {
  const c = registeredContract(tx, namespace, queue, workflowType, staleAfterMs);
  if (!c) return {};
  const out: JsonObject = {
    declared_queries: stringList(c.queries),
    declared_query_contracts: contractList(c.query_contracts) as unknown as JsonObject[],
    declared_signals: stringList(c.signals),
    declared_signal_contracts: contractList(c.signal_contracts) as unknown as JsonObject[],
    declared_updates: stringList(c.updates),
    declared_update_contracts: contractList(c.update_contracts) as unknown as JsonObject[],
  };
  if ("update_validators" in c) out.declared_update_validators = stringList(c.update_validators);
  out.declared_entry_method = nullableString(c.entry_method) ?? "handle";
  out.declared_entry_mode = nullableString(c.entry_mode) ?? "canonical";
  out.declared_entry_declaring_class = nullableString(c.entry_declaring_class) ?? `external:${workflowType}`;
  return out;
}

/** `RunCommandContract::forRun` (RunCommandContract.php@8dc90d6), signal part: strict only when all nine keys are there. */
export function runCommandContract(tx: Tx, runId: string): RunCommandContract {
  const row = tx.db
    .prepare(
      "SELECT payload FROM workflow_history_events WHERE workflow_run_id = ? AND event_type = 'WorkflowStarted' ORDER BY sequence LIMIT 1",
    )
    .get(runId) as { payload: string | null } | undefined;
  const payload = row?.payload ? (JSON.parse(row.payload) as JsonObject) : null;
  const strict =
    payload !== null &&
    STRICT_KEYS.every((k) => k in payload) &&
    Array.isArray(payload.declared_signals) &&
    Array.isArray(payload.declared_signal_contracts);
  const signals = strict
    ? (payload.declared_signals as unknown[]).filter((s): s is string => typeof s === "string" && s !== "")
    : [];
  return {
    signals,
    signal_contracts: strict ? contractList(payload.declared_signal_contracts) : [],
    source: strict ? SOURCE_DURABLE_HISTORY : SOURCE_UNAVAILABLE,
    // A run without declared keys needs a backfill this server cannot provide (no loadable class).
    backfill_needed: row !== undefined && !strict && !(payload !== null && STRICT_KEYS.some((k) => k in payload)),
    backfill_available: false,
  };
}

export interface SignalAdmission {
  allowed: boolean;
  diagnostics: JsonObject;
  message: string | null;
}

/** `signalAdmissionForRun` (WorkflowStub.php@8dc90d6) for a server that loads no workflow classes. */
export function signalAdmission(
  contract: RunCommandContract,
  signalName: string,
  workflowType: string,
): SignalAdmission {
  const diagnostics: JsonObject = {
    command_contract_source: contract.source,
    command_contract_backfill_needed: contract.backfill_needed,
    command_contract_backfill_available: contract.backfill_available,
    declared_signals: contract.signals,
  };
  if (contract.signals.includes(signalName))
    return { allowed: true, diagnostics: { ...diagnostics, signal_admission: "declared_signal" }, message: null };
  if (contract.source !== SOURCE_DURABLE_HISTORY)
    return {
      allowed: true,
      diagnostics: { ...diagnostics, signal_admission: "external_contract_unavailable" },
      message: null,
    };
  const declared = contract.signals.length > 0 ? contract.signals.join(", ") : "none";
  const message = `Workflow signal [${signalName}] is unknown for workflow type [${workflowType}]: the durable command contract does not declare that handler. Command contract source [${contract.source}], declared signals [${declared}].`;
  return { allowed: false, diagnostics: { ...diagnostics, signal_admission: "handler_not_declared" }, message };
}

function splitType(type: string, delimiter: string): string[] {
  return type
    .split(delimiter)
    .map((t) => t.trim())
    .filter((t) => t !== "");
}

/** `valueMatchesDeclaredType` over decoded Avro values: longs and doubles both arrive as numbers here. */
function matchesType(value: PayloadValue, typeIn: string): boolean {
  const type = typeIn.trim();
  if (type === "" || type === "mixed") return true;
  if (type.startsWith("?")) return value === null || matchesType(value, type.slice(1));
  const union = splitType(type, "|");
  if (union.length > 1) return union.some((t) => matchesType(value, t));
  const intersection = splitType(type, "&");
  if (intersection.length > 1) return intersection.every((t) => matchesType(value, t));
  switch (type.replace(/^[()\s]+|[()\s]+$/g, "")) {
    case "int":
      return typeof value === "bigint" || (typeof value === "number" && Number.isInteger(value));
    case "float":
      return typeof value === "number" || typeof value === "bigint";
    case "string":
      return typeof value === "string";
    case "bool":
      return typeof value === "boolean";
    case "array":
    case "iterable":
      return Array.isArray(value) || (value !== null && typeof value === "object" && !(value instanceof Uint8Array));
    case "scalar":
      return ["string", "number", "bigint", "boolean"].includes(typeof value);
    case "true":
      return value === true;
    case "false":
      return value === false;
    case "null":
      return value === null;
    default:
      // Objects and classes: a decoded payload holds no PHP objects.
      return false;
  }
}

function allowsNull(p: CommandParameter): boolean {
  if (typeof p.allows_null === "boolean") return p.allows_null;
  const type = typeof p.type === "string" ? p.type.trim() : "";
  return type === "" || type.startsWith("?") || splitType(type, "|").includes("null");
}

function parameterErrors(errors: Record<string, string[]>, p: CommandParameter, value: PayloadValue): void {
  const name = typeof p.name === "string" ? p.name : "argument";
  const add = (m: string) => (errors[name] = [...(errors[name] ?? []), m]);
  if (value === null) {
    if (!allowsNull(p)) add(`The ${name} argument cannot be null.`);
    return;
  }
  const type = typeof p.type === "string" ? p.type.trim() : "";
  if (type !== "" && type !== "mixed" && !matchesType(value, type))
    add(`The ${name} argument must be of type ${type}.`);
}

/** `normalizePositionalCommandArguments` (WorkflowStub.php@8dc90d6): the validation errors only. */
function positionalErrors(contract: NamedContract, args: PayloadValue[]): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  let consumed = 0;
  for (const p of contract.parameters) {
    if (p.variadic === true) {
      while (consumed < args.length) parameterErrors(errors, p, args[consumed++] as PayloadValue);
      continue;
    }
    if (consumed < args.length) {
      parameterErrors(errors, p, args[consumed++] as PayloadValue);
      continue;
    }
    if (p.default_available === true) continue;
    if (p.required === true) errors[p.name] = [...(errors[p.name] ?? []), `The ${p.name} argument is required.`];
  }
  if (consumed < args.length)
    errors.arguments = [...(errors.arguments ?? []), `Too many arguments were provided for signal [${contract.name}].`];
  return errors;
}

/** `normalizeNamedCommandArguments` (WorkflowStub.php@8dc90d6): the validation errors only. */
function namedErrors(contract: NamedContract, args: Record<string, PayloadValue>): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  const known = new Set<string>();
  for (const p of contract.parameters) {
    known.add(p.name);
    if (p.name in args) {
      const v = args[p.name] as PayloadValue;
      if (p.variadic === true && Array.isArray(v)) v.forEach((x) => parameterErrors(errors, p, x));
      else parameterErrors(errors, p, v);
      continue;
    }
    if (p.variadic === true || p.default_available === true) continue;
    if (p.required === true) errors[p.name] = [...(errors[p.name] ?? []), `The ${p.name} argument is required.`];
  }
  for (const name of Object.keys(args))
    if (!known.has(name)) errors[name] = [...(errors[name] ?? []), `Unknown argument [${name}].`];
  return errors;
}

/**
 * `validatedSignalArgumentsForRun` (WorkflowStub.php@8dc90d6) against the durable signal contract:
 * a list is positional, a map named. No contract for the signal, or input this server cannot
 * decode (another codec): nothing to check, as the engine admits arguments it has no contract for.
 */
export function signalArgumentErrors(
  contract: RunCommandContract,
  signalName: string,
  input: PayloadEnvelope | null,
): Record<string, string[]> {
  const declared = contract.signal_contracts.find((c) => c.name === signalName);
  if (!declared) return {};
  let args: PayloadValue = [];
  if (input) {
    if (input.codec !== "avro") return {};
    try {
      args = decodeBlob(input.blob);
    } catch {
      return {};
    }
  }
  if (Array.isArray(args)) return positionalErrors(declared, args);
  if (args !== null && typeof args === "object" && !(args instanceof Uint8Array)) return namedErrors(declared, args);
  return positionalErrors(declared, [args]);
}
