/**
 * Durable confirmation of an operator command. The server's answer only says the command was
 * accepted; the console calls an action done once its effect is in the run's durable history and
 * projections (DESIGN.md: "the durable result … is the source of truth"). Pure: the caller feeds
 * observations (history events after the command, describe/debug fields) and a clock.
 */

export type ConfirmAction =
  "repair" | "requestCancellation" | "cancel" | "terminate" | "signal" | "archive" | "startAgain";

export type StepId =
  | "command_recorded"
  | "task_recreated"
  | "left_repair_needed"
  | "run_closed"
  | "status_final"
  | "run_archived"
  | "run_started"
  | "cancellation_delivered";

export type StepStatus = "done" | "pending" | "failed" | "skipped";

export interface Step {
  id: StepId;
  status: StepStatus;
  /** History sequence of the event that proved the step, when one did. */
  sequence: number | null;
  /** Free facts for the screen (task id, outcome, status, event type). */
  facts: Readonly<Record<string, string>>;
}

export type Phase = "awaiting" | "confirmed" | "failed" | "timed_out";

export interface Confirmation {
  phase: Phase;
  steps: Step[];
  /** Steps still pending (for "what is still pending" on timeout). */
  pending: StepId[];
  elapsedMs: number;
}

/** What the accepted command answer told us. */
export interface AcceptedCommand {
  action: ConfirmAction;
  /** `command_id` from the answer; null for start (a start has no command id on the instance). */
  commandId: string | null;
  /** `outcome` from the answer (e.g. `repair_dispatched`, `archive_not_needed`, `started_new`). */
  outcome: string | null;
}

export interface ObservedEvent {
  sequence: number;
  event_type: string;
  payload: Readonly<Record<string, unknown>>;
}

export interface Observation {
  /** Events of the target run seen so far after the command was sent (any order, duplicates allowed). */
  events: readonly ObservedEvent[];
  status?: string | null;
  isTerminal?: boolean | null;
  livenessState?: string | null;
  /** Archived per the server: export `archived_at`, or describe's `can_archive` turned false on a closed run. */
  archived?: boolean | null;
  /** Ids of the run's open (ready/leased) tasks, from debug (see {@link openTaskIdsOf}). */
  openTaskIds?: readonly string[];
  /** For start: the new run could be described. */
  runExists?: boolean;
}

export interface ConfirmClock {
  startedAt: number;
  now: number;
  timeoutMs: number;
}

const REQUESTED_EVENT: Readonly<Partial<Record<ConfirmAction, string>>> = {
  repair: "RepairRequested",
  requestCancellation: "CooperativeCancellationRequested",
  cancel: "CancelRequested",
  terminate: "TerminateRequested",
  signal: "SignalReceived",
  archive: "ArchiveRequested",
};

const CLOSING_EVENT: Readonly<Partial<Record<ConfirmAction, string>>> = {
  requestCancellation: "WorkflowCancelled",
  cancel: "WorkflowCancelled",
  terminate: "WorkflowTerminated",
};

const FINAL_STATUS: Readonly<Partial<Record<ConfirmAction, string>>> = {
  requestCancellation: "cancelled",
  cancel: "cancelled",
  terminate: "terminated",
};

function text(value: unknown): string | null {
  return typeof value === "string" && value !== "" ? value : null;
}

function step(
  id: StepId,
  status: StepStatus,
  sequence: number | null = null,
  facts: Record<string, string> = {},
): Step {
  return { id, status, sequence, facts };
}

function findEvent(events: readonly ObservedEvent[], type: string, commandId: string | null): ObservedEvent | null {
  let found: ObservedEvent | null = null;
  for (const event of events) {
    if (event.event_type !== type) continue;
    if (commandId !== null && text(event.payload.workflow_command_id) !== commandId) continue;
    if (found === null || event.sequence < found.sequence) found = event;
  }
  return found;
}

function commandRecorded(
  command: AcceptedCommand,
  events: readonly ObservedEvent[],
): { step: Step; event: ObservedEvent | null } {
  const type = REQUESTED_EVENT[command.action];
  if (!type) return { step: step("command_recorded", "skipped"), event: null };
  const event = findEvent(events, type, command.commandId);
  if (!event) return { step: step("command_recorded", "pending", null, { eventType: type }), event: null };
  const recordedOutcome = text(event.payload.outcome);
  const facts: Record<string, string> = { eventType: type };
  if (recordedOutcome) facts.outcome = recordedOutcome;
  // History outranks the answer: a different recorded outcome is a contradiction worth showing.
  const contradicts = recordedOutcome !== null && command.outcome !== null && recordedOutcome !== command.outcome;
  if (contradicts) facts.answeredOutcome = command.outcome ?? "";
  return { step: step("command_recorded", contradicts ? "failed" : "done", event.sequence, facts), event };
}

function repairSteps(command: AcceptedCommand, observation: Observation, recorded: ObservedEvent | null): Step[] {
  const outcome = text(recorded?.payload.outcome) ?? command.outcome;
  if (outcome === "repair_not_needed")
    return [step("task_recreated", "skipped"), step("left_repair_needed", "skipped")];
  const taskId = text(recorded?.payload.task_id);
  const taskType = text(recorded?.payload.task_type);
  const liveness = observation.livenessState ?? null;
  const left = liveness !== null && liveness !== "repair_needed";
  const closed = observation.isTerminal === true;
  const facts: Record<string, string> = {};
  if (taskId) facts.taskId = taskId;
  if (taskType) facts.taskType = taskType;
  // The recreated task is durable once debug lists it, or once the run has moved on from it.
  const taskSeen = taskId !== null && ((observation.openTaskIds ?? []).includes(taskId) || left || closed);
  const taskStep = step("task_recreated", taskSeen ? "done" : "pending", null, facts);
  const leftStep = step(
    "left_repair_needed",
    left || closed ? "done" : "pending",
    null,
    liveness ? { livenessState: liveness } : {},
  );
  return [taskStep, leftStep];
}

function closingSteps(command: AcceptedCommand, observation: Observation): Step[] {
  const closingType = CLOSING_EVENT[command.action] ?? "";
  const closing =
    findEvent(observation.events, closingType, command.commandId) ?? findEvent(observation.events, closingType, null);
  const final = FINAL_STATUS[command.action] ?? "";
  const status = observation.status ?? null;
  const statusStep =
    status === final
      ? step("status_final", "done", null, { status })
      : // Closed some other way first (completed, failed): the command can no longer take effect.
        observation.isTerminal === true && status !== null
        ? step("status_final", "failed", null, { status })
        : step("status_final", "pending", null, status ? { status } : {});
  return [
    step("run_closed", closing ? "done" : "pending", closing?.sequence ?? null, { eventType: closingType }),
    statusStep,
  ];
}

function archiveSteps(command: AcceptedCommand, observation: Observation, recorded: ObservedEvent | null): Step[] {
  const outcome = text(recorded?.payload.outcome) ?? command.outcome;
  const archived = findEvent(observation.events, "WorkflowArchived", command.commandId);
  if (outcome === "archive_not_needed") return [step("run_archived", observation.archived ? "done" : "pending", null)];
  return [step("run_archived", archived && observation.archived ? "done" : "pending", archived?.sequence ?? null)];
}

function record(value: unknown): Readonly<Record<string, unknown>> {
  return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : {};
}

/**
 * Cooperative cancellation, from history only: the request (its cleanup deadline as recorded), its
 * delivery to the workflow, and the close. Delivery is claimed only once CooperativeCancellationDelivered
 * is read; a run closed without it says how (`cancellation_cleanup.outcome`: `not_delivered`,
 * `deadline_expired`) instead. Every event carries the request id as `workflow_command_id`.
 */
function cancellationSteps(command: AcceptedCommand, observation: Observation, recorded: Step): Step[] {
  const requested = findEvent(observation.events, "CooperativeCancellationRequested", command.commandId);
  const deadline = text(requested?.payload.cleanup_deadline_at);
  const recordedStep = deadline ? { ...recorded, facts: { ...recorded.facts, cleanupDeadlineAt: deadline } } : recorded;
  const delivered = findEvent(observation.events, "CooperativeCancellationDelivered", command.commandId);
  const closing = findEvent(observation.events, "WorkflowCancelled", command.commandId);
  const cleanupOutcome = text(record(closing?.payload.cancellation_cleanup).outcome);
  const deliveredStep = delivered
    ? step("cancellation_delivered", "done", delivered.sequence, {
        callKind: text(delivered.payload.call_kind) ?? "",
        callSequence: String(delivered.payload.sequence ?? ""),
      })
    : closing || observation.isTerminal === true
      ? step("cancellation_delivered", "skipped", null, cleanupOutcome ? { cleanupOutcome } : {})
      : step("cancellation_delivered", "pending", null, deadline ? { cleanupDeadlineAt: deadline } : {});
  const [closed, status] = closingSteps(command, observation);
  const closedStep = cleanupOutcome && closed ? { ...closed, facts: { ...closed.facts, cleanupOutcome } } : closed;
  return [recordedStep, deliveredStep, closedStep as Step, status as Step];
}

export function confirmationSteps(command: AcceptedCommand, observation: Observation): Step[] {
  if (command.action === "startAgain") {
    const started =
      observation.runExists === true || observation.events.some((event) => event.event_type === "WorkflowStarted");
    return [step("run_started", started ? "done" : "pending")];
  }
  const recorded = commandRecorded(command, observation.events);
  if (command.action === "requestCancellation") return cancellationSteps(command, observation, recorded.step);
  const rest = (() => {
    switch (command.action) {
      case "repair":
        return repairSteps(command, observation, recorded.event);
      case "cancel":
      case "terminate":
        return closingSteps(command, observation);
      case "archive":
        return archiveSteps(command, observation, recorded.event);
      case "signal":
        return [];
    }
  })();
  return [recorded.step, ...rest];
}

/** One evaluation of the confirmation: confirmed once every step is done or skipped. */
export function evaluateConfirmation(
  command: AcceptedCommand,
  observation: Observation,
  clock: ConfirmClock,
): Confirmation {
  const steps = confirmationSteps(command, observation);
  const pending = steps.filter((candidate) => candidate.status === "pending").map((candidate) => candidate.id);
  const elapsedMs = Math.max(0, clock.now - clock.startedAt);
  const failed = steps.some((candidate) => candidate.status === "failed");
  const phase: Phase = failed
    ? "failed"
    : pending.length === 0
      ? "confirmed"
      : elapsedMs >= clock.timeoutMs
        ? "timed_out"
        : "awaiting";
  return { phase, steps, pending, elapsedMs };
}

/** Merges a page of newly read events into what was seen, by sequence. */
export function mergeEvents(seen: readonly ObservedEvent[], page: readonly ObservedEvent[]): ObservedEvent[] {
  const bySequence = new Map<number, ObservedEvent>();
  for (const event of seen) bySequence.set(event.sequence, event);
  for (const event of page) bySequence.set(event.sequence, event);
  return [...bySequence.values()].sort((a, b) => a.sequence - b.sequence);
}

/** Polling back-off: quick at first (the effect usually lands within a second), then gentler. */
export function pollDelayMs(elapsedMs: number): number {
  if (elapsedMs < 3_000) return 250;
  if (elapsedMs < 15_000) return 750;
  return 2_000;
}

const OPEN_TASK_STATUSES = new Set(["ready", "leased"]);

interface DebugTaskView {
  pending_workflow_tasks?: ReadonlyArray<{ task_id: string; status?: string | null }>;
  execution?: { next_scheduled_event?: { task_id?: string | null; task_status?: string | null } | null } | null;
}

/**
 * Ids of the run's open tasks as a debug view shows them. The real server lists workflow tasks only in
 * `pending_workflow_tasks` (WorkflowRunDiagnostics.php@11d35b7); an activity or timer task that repair
 * recreated is visible as the summary's `execution.next_scheduled_event` instead, so both are read.
 */
export function openTaskIdsOf(debug: DebugTaskView): string[] {
  const ids = (debug.pending_workflow_tasks ?? [])
    .filter((task) => !task.status || OPEN_TASK_STATUSES.has(task.status))
    .map((task) => task.task_id);
  const next = debug.execution?.next_scheduled_event;
  if (next?.task_id && (!next.task_status || OPEN_TASK_STATUSES.has(next.task_status)) && !ids.includes(next.task_id))
    ids.push(next.task_id);
  return ids;
}
