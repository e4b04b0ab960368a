import type { PersonRole } from "@/lib/server/auth/roles";
import type { LivenessInput } from "./liveness";
import { deriveRepairBlockedReason } from "./liveness";
import type { Message } from "./message";
import { message } from "./message";

/**
 * `{enabled, reason}` for every run action, so each disabled button can say why. The server stays
 * the judge (the action handler re-checks and the command may still be rejected); these rules only
 * keep the console from offering what is known to fail or to do nothing.
 */

export type Role = "admin" | "operator" | "worker";

export type RunAction = "repair" | "requestCancellation" | "cancel" | "terminate" | "signal" | "archive" | "startAgain";

// Request cancellation comes before Cancel and Terminate: the gentler stop is offered first (issue 41).
export const RUN_ACTIONS: readonly RunAction[] = [
  "repair",
  "requestCancellation",
  "cancel",
  "terminate",
  "signal",
  "archive",
  "startAgain",
];

export type CapabilityReason =
  | "read_only"
  | "person_role"
  | "role"
  | "selected_run_not_current"
  | "run_closed"
  | "run_not_closed"
  | "run_archived"
  | "run_open"
  | "liveness_unknown"
  | "repair_not_needed"
  | "unsupported_history"
  | "waiting_for_compatible_worker"
  | "server_disallowed"
  | "server_capabilities_unknown"
  | "cancellation_not_advertised";

export interface Capability {
  enabled: boolean;
  reason: CapabilityReason | null;
  message: Message | null;
}

export type RunCapabilities = Readonly<Record<RunAction, Capability>>;

/** The fields of describe (`GET /workflows/{id}/runs/{runId}`) and export `workflow` that the rules read. */
export interface RunDetailInput {
  status?: string | null;
  is_terminal?: boolean | null;
  is_current_run?: boolean | null;
  archived_at?: string | null;
  actions?: Partial<
    Record<"can_signal" | "can_cancel" | "can_terminate" | "can_repair" | "can_archive", boolean>
  > | null;
}

export interface CapabilityContext {
  /** `BREAKWATER_READ_ONLY=1`. */
  readOnly: boolean;
  /** The role the server grants the console's token; null when not known (the server then decides). */
  role: Role | null;
  /** The signed-in person's console role; null or absent when console auth is off (no person to check). */
  personRole?: PersonRole | null;
  /** Debug `execution` or export `summary`; repair stays disabled until it is known. */
  liveness?: LivenessInput | null;
  /**
   * Whether the server advertises cooperative cancellation (see {@link advertisesCooperativeCancellation});
   * null or absent until cluster/info is read.
   */
  cooperativeCancellation?: boolean | null;
}

/**
 * Every run command lives under `/workflows/**`, which `operator` and `admin` may call
 * (server-api §1.2); `worker` tokens reach only the worker plane.
 */
const REQUIRED_ROLE: Readonly<Record<RunAction, Role>> = {
  repair: "operator",
  requestCancellation: "operator",
  cancel: "operator",
  terminate: "operator",
  signal: "operator",
  archive: "operator",
  startAgain: "operator",
};

const ROLE_RANK: Readonly<Record<Role, number>> = { worker: 0, operator: 1, admin: 2 };

// The same order as `personMay` in lib/server/auth/roles.ts (capabilities.test.ts holds them together);
// repeated here because lib/server stays out of browser bundles.
const PERSON_RANK: Readonly<Record<PersonRole, number>> = { viewer: 0, operator: 1, admin: 2 };

const SERVER_FLAG: Readonly<Partial<Record<RunAction, keyof NonNullable<RunDetailInput["actions"]>>>> = {
  repair: "can_repair",
  cancel: "can_cancel",
  terminate: "can_terminate",
  signal: "can_signal",
  archive: "can_archive",
};

const ENABLED: Capability = { enabled: true, reason: null, message: null };

function disabled(reason: CapabilityReason, values: Readonly<Record<string, string>> = {}): Capability {
  return { enabled: false, reason, message: message(`views.capability.${reason}`, values) };
}

const TERMINAL_STATUSES = new Set(["completed", "failed", "cancelled", "terminated"]);

function isTerminal(detail: RunDetailInput): boolean {
  return detail.is_terminal ?? TERMINAL_STATUSES.has(detail.status ?? "");
}

function stateRule(action: RunAction, detail: RunDetailInput, liveness: LivenessInput | null | undefined): Capability {
  const closed = isTerminal(detail);
  const historical = detail.is_current_run === false;
  switch (action) {
    case "requestCancellation":
    case "cancel":
    case "terminate":
    case "signal":
      if (historical) return disabled("selected_run_not_current");
      return closed ? disabled("run_closed") : ENABLED;
    case "repair": {
      if (historical) return disabled("selected_run_not_current");
      if (closed) return disabled("run_closed");
      if (!liveness?.liveness_state) return disabled("liveness_unknown");
      const blocked = deriveRepairBlockedReason({
        ...liveness,
        is_current_run: detail.is_current_run,
        is_terminal: closed,
      });
      if (blocked === null) return ENABLED;
      switch (blocked) {
        case "unsupported_history":
          return disabled("unsupported_history");
        case "waiting_for_compatible_worker":
          return disabled("waiting_for_compatible_worker");
        case "run_closed":
          return disabled("run_closed");
        case "selected_run_not_current":
          return disabled("selected_run_not_current");
        default:
          return disabled("repair_not_needed");
      }
    }
    case "archive":
      // Archive is instance-targeted (server-api §2.7): from a historical run it would hit the current one.
      if (historical) return disabled("selected_run_not_current");
      if (detail.archived_at) return disabled("run_archived");
      return closed ? ENABLED : disabled("run_not_closed");
    case "startAgain":
      return closed ? ENABLED : disabled("run_open");
  }
}

/**
 * Whether the signed-in person may ask for an action whose server route needs `required`, as the
 * action guard judges it: run commands need an operator, the system passes an admin; a viewer only
 * reads. With console auth off (`personRole` null) there is no person to refuse.
 */
export function personCapability(personRole: PersonRole | null | undefined, required: Role): Capability {
  if (personRole == null) return ENABLED;
  const need: PersonRole = required === "admin" ? "admin" : "operator";
  return PERSON_RANK[personRole] >= PERSON_RANK[need]
    ? ENABLED
    : disabled("person_role", { personRole, requiredRole: need });
}

export function runCapability(action: RunAction, detail: RunDetailInput, context: CapabilityContext): Capability {
  if (context.readOnly) return disabled("read_only");
  const required = REQUIRED_ROLE[action];
  // The guard's order: read-only, then the person, then the token the console sends for them.
  const byPerson = personCapability(context.personRole, required);
  if (!byPerson.enabled) return byPerson;
  if (context.role !== null && ROLE_RANK[context.role] < ROLE_RANK[required]) {
    return disabled("role", { role: context.role, requiredRole: required });
  }
  const byState = stateRule(action, detail, context.liveness);
  if (!byState.enabled) return byState;
  if (action === "requestCancellation" && context.cooperativeCancellation !== true)
    return disabled(
      context.cooperativeCancellation === false ? "cancellation_not_advertised" : "server_capabilities_unknown",
    );
  // The server's flag can only take an action away: `can_repair` is true on any open current run,
  // so it never enables repair by itself.
  const flag = SERVER_FLAG[action];
  if (flag && detail.actions?.[flag] === false) return disabled("server_disallowed");
  return byState;
}

export function runCapabilities(detail: RunDetailInput, context: CapabilityContext): RunCapabilities {
  return {
    repair: runCapability("repair", detail, context),
    requestCancellation: runCapability("requestCancellation", detail, context),
    cancel: runCapability("cancel", detail, context),
    terminate: runCapability("terminate", detail, context),
    signal: runCapability("signal", detail, context),
    archive: runCapability("archive", detail, context),
    startAgain: runCapability("startAgain", detail, context),
  };
}

/**
 * Whether cluster/info advertises cooperative cancellation: `worker_protocol.server_capabilities
 * .cooperative_cancellation: true`, the flag sdk-python 2.12.0 checks before it sends a request
 * (docs/contract.md "Cooperative cancellation"). Anything else, a missing key included, is false;
 * null when there is no answer to read yet.
 */
export function advertisesCooperativeCancellation(info: unknown): boolean | null {
  if (info === null || info === undefined) return null;
  const protocol = field(info, "worker_protocol");
  return field(field(protocol, "server_capabilities"), "cooperative_cancellation") === true;
}

function field(value: unknown, key: string): unknown {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)[key]
    : undefined;
}

/**
 * Sending an update (the run page's Updates tab): an operator command like a signal, for the
 * current open run only, since the server refuses a closed run (409 run_not_active, recorded as
 * `UpdateRejected`) and a historical one. Not in RUN_ACTIONS: it has its own form, not a menu entry.
 */
export function updateCapability(detail: RunDetailInput, context: CapabilityContext): Capability {
  if (context.readOnly) return disabled("read_only");
  const byPerson = personCapability(context.personRole, "operator");
  if (!byPerson.enabled) return byPerson;
  if (context.role !== null && ROLE_RANK[context.role] < ROLE_RANK.operator)
    return disabled("role", { role: context.role, requiredRole: "operator" });
  if (detail.is_current_run === false) return disabled("selected_run_not_current");
  return isTerminal(detail) ? disabled("run_closed") : ENABLED;
}

/** Why the guard would refuse an action needing `required`, in its order; null when it would not. */
export type GuardRefusal =
  | { kind: "checking" }
  | { kind: "readOnly" }
  | { kind: "person"; capability: Capability }
  | { kind: "token"; role: Role };

/**
 * The action guard's order (lib/server/proxy/action-guard.ts) for screens without a run: not yet
 * known, read-only, the signed-in person, then the token the console sends for them.
 */
export function guardRefusal(
  context: { known: boolean; readOnly: boolean; personRole: PersonRole | null; role: Role | null },
  required: "operator" | "admin",
): GuardRefusal | null {
  if (!context.known) return { kind: "checking" };
  if (context.readOnly) return { kind: "readOnly" };
  const byPerson = personCapability(context.personRole, required);
  if (!byPerson.enabled) return { kind: "person", capability: byPerson };
  if (context.role !== null && ROLE_RANK[context.role] < ROLE_RANK[required])
    return { kind: "token", role: context.role };
  return null;
}
