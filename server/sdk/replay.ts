import { decodePayload, encodePayload } from "./codec";
import type { PayloadValue } from "./codec";
import type { HistoryEvent, WorkflowCommand } from "./protocol";
import {
  ActivityFailure,
  ActivityOperation,
  AllOperation,
  ChildWorkflowFailure,
  ChildWorkflowOperation,
  ContinueAsNew,
  InvalidYieldError,
  NonDeterminismError,
  SignalWaitOperation,
  TimerCancelled,
  TimerOperation,
  WorkflowContext,
} from "./workflow";
import type { ActivityOptions, Operation, WorkflowDefinition, WorkflowInfo, Yieldable } from "./workflow";

/**
 * Replays a workflow from its full history and returns the commands of this workflow task.
 *
 * Matching rules (the server numbers commands as it applies them; we never assume its base):
 *  - the k-th durable operation the code yields pairs with the k-th *opening* event in history
 *    (`ActivityScheduled`, `TimerScheduled`, `ChildWorkflowScheduled`, `SignalWaitOpened`);
 *    a different kind or type there is non-determinism;
 *  - an operation's outcome is the earliest closing event that names the opening event's id
 *    (`activity_execution_id`, `timer_id`, `child_call_id`/`child_workflow_run_id`) or, failing
 *    an id, carries the same `sequence`;
 *  - signal waits take delivered signals of their name first-in first-out, unless the wait's
 *    timeout timer fired first (then they resolve to null);
 *  - an operation with no opening event is new: it becomes a command and the code stops there.
 */

type Outcome = { ok: true; value: unknown } | { ok: false; error: Error };

const OPENING_KIND: Record<string, Operation<unknown>["kind"]> = {
  ActivityScheduled: "activity",
  TimerScheduled: "timer",
  ChildWorkflowScheduled: "child",
  SignalWaitOpened: "signal",
};

function str(v: unknown): string | null {
  return typeof v === "string" && v.length > 0 ? v : null;
}

function num(v: unknown): number | null {
  return typeof v === "number" ? v : null;
}

/** A timer that exists to bound a signal/condition wait is part of that wait, not a user timer. */
function isWaitTimer(e: HistoryEvent): boolean {
  const p = e.payload;
  return (
    str(p.signal_wait_id) !== null ||
    str(p.condition_wait_id) !== null ||
    /signal|condition/.test(String(p.timer_kind ?? ""))
  );
}

function asArgs(value: PayloadValue): PayloadValue[] {
  return Array.isArray(value) ? value : value === null ? [] : [value];
}

function failureMessage(p: Record<string, unknown>, fallback: string): string {
  const exception = p.exception;
  const nested = exception && typeof exception === "object" ? (exception as Record<string, unknown>).message : null;
  return str(p.message) ?? str(nested) ?? fallback;
}

export interface ReplayInput {
  definition: WorkflowDefinition;
  args: PayloadValue[];
  history: HistoryEvent[];
  info: WorkflowInfo;
  activityDefaults?: (activityType: string) => ActivityOptions | undefined;
}

export interface ReplayResult {
  commands: WorkflowCommand[];
  /** True when the code reached a terminal decision (complete, fail, continue-as-new). */
  terminal: boolean;
}

export function replayWorkflow(input: ReplayInput): ReplayResult {
  const { history } = input;
  const openings = history.filter((e) => {
    const kind = OPENING_KIND[e.event_type];
    return kind !== undefined && !(kind === "timer" && isWaitTimer(e));
  });
  let position = 0;

  const sameSequence = (a: HistoryEvent, b: HistoryEvent): boolean => {
    const sa = num(a.payload.sequence);
    return sa !== null && sa === num(b.payload.sequence);
  };

  const findClose = (opening: HistoryEvent, types: string[], idKeys: string[]): HistoryEvent | undefined => {
    const ids = idKeys.map((k) => str(opening.payload[k]));
    return history.find((e) => {
      if (!types.includes(e.event_type)) return false;
      const matchedById = idKeys.some((k, i) => ids[i] !== null && str(e.payload[k]) === ids[i]);
      if (matchedById) return true;
      const hasAnyId = idKeys.some((k, i) => ids[i] !== null && str(e.payload[k]) !== null);
      return !hasAnyId && sameSequence(opening, e);
    });
  };

  const resolveActivity = (op: ActivityOperation<unknown>, opening: HistoryEvent): Outcome | null => {
    const recordedType = str(opening.payload.activity_type);
    if (recordedType !== null && recordedType !== op.activityType) {
      throw new NonDeterminismError(
        `operation ${position}: code scheduled activity ${op.activityType}, history has ${recordedType}`,
      );
    }
    const close = findClose(
      opening,
      ["ActivityCompleted", "ActivityFailed", "ActivityTimedOut", "ActivityCancelled"],
      ["activity_execution_id"],
    );
    if (!close) return null;
    const p = close.payload;
    switch (close.event_type) {
      case "ActivityCompleted":
        return { ok: true, value: decodePayload(p.result, str(p.payload_codec)) };
      case "ActivityTimedOut":
        return {
          ok: false,
          error: new ActivityFailure(
            failureMessage(p, `activity ${op.activityType} timed out`),
            op.activityType,
            "ActivityTimeout",
            false,
            "timeout",
            str(p.timeout_kind),
          ),
        };
      case "ActivityCancelled":
        return {
          ok: false,
          error: new ActivityFailure(
            `activity ${op.activityType} was cancelled`,
            op.activityType,
            "ActivityCancelled",
            false,
            "cancelled",
            null,
          ),
        };
      default:
        return {
          ok: false,
          error: new ActivityFailure(
            failureMessage(p, `activity ${op.activityType} failed`),
            op.activityType,
            str(p.exception_type) ?? str(p.exception_class),
            p.non_retryable === true,
            str(p.failure_category),
            null,
          ),
        };
    }
  };

  const resolveTimer = (opening: HistoryEvent): Outcome | null => {
    const close = findClose(opening, ["TimerFired", "TimerCancelled"], ["timer_id"]);
    if (!close) return null;
    return close.event_type === "TimerFired"
      ? { ok: true, value: undefined }
      : { ok: false, error: new TimerCancelled() };
  };

  const resolveChild = (op: ChildWorkflowOperation<unknown>, opening: HistoryEvent): Outcome | null => {
    const recordedType = str(opening.payload.child_workflow_type) ?? str(opening.payload.workflow_type);
    if (recordedType !== null && recordedType !== op.workflowType) {
      throw new NonDeterminismError(
        `operation ${position}: code started child ${op.workflowType}, history has ${recordedType}`,
      );
    }
    const close = findClose(
      opening,
      ["ChildRunCompleted", "ChildRunFailed", "ChildRunCancelled", "ChildRunTerminated"],
      ["child_call_id", "workflow_link_id", "child_workflow_run_id"],
    );
    if (!close) return null;
    const p = close.payload;
    if (close.event_type === "ChildRunCompleted") {
      return { ok: true, value: decodePayload(p.output ?? p.result, str(p.payload_codec)) };
    }
    return {
      ok: false,
      error: new ChildWorkflowFailure(
        failureMessage(
          p,
          `child workflow ${op.workflowType} ${close.event_type.slice("ChildRun".length).toLowerCase()}`,
        ),
        op.workflowType,
        str(p.child_status) ?? str(p.closed_reason),
        str(p.exception_type) ?? str(p.exception_class),
      ),
    };
  };

  // One entry per delivered signal (SignalReceived and SignalApplied share `signal_id`); waits
  // take them first-in first-out by name, which also covers a signal that arrived before the
  // code reached its wait.
  interface DeliveredSignal {
    name: string;
    index: number;
    value: PayloadValue[];
    consumed: boolean;
  }
  const signals: DeliveredSignal[] = [];
  const signalByKey = new Map<string, DeliveredSignal>();
  history.forEach((e, index) => {
    if (e.event_type !== "SignalReceived" && e.event_type !== "SignalApplied") return;
    const p = e.payload;
    const key = str(p.signal_id) ?? str(p.workflow_command_id) ?? `event:${index}`;
    if (signalByKey.has(key)) return;
    const raw = e.event_type === "SignalApplied" ? (p.value ?? p.arguments) : p.arguments;
    const signal = {
      name: str(p.signal_name) ?? "",
      index,
      value: asArgs(decodePayload(raw, str(p.payload_codec))),
      consumed: false,
    };
    signalByKey.set(key, signal);
    signals.push(signal);
  });
  const nextSignal = (name: string, before: number): DeliveredSignal | undefined =>
    signals.find((sg) => !sg.consumed && sg.name === name && sg.index < before);

  const resolveSignal = (op: SignalWaitOperation, opening: HistoryEvent): Outcome | null => {
    const recordedName = str(opening.payload.signal_name);
    if (recordedName !== null && recordedName !== op.signalName) {
      throw new NonDeterminismError(
        `operation ${position}: code waits for signal ${op.signalName}, history has ${recordedName}`,
      );
    }
    const waitId = str(opening.payload.signal_wait_id);
    const timeoutAt = history.findIndex(
      (e) =>
        e.event_type === "TimerFired" &&
        isWaitTimer(e) &&
        (waitId !== null ? str(e.payload.signal_wait_id) === waitId : sameSequence(opening, e)),
    );
    const signal = nextSignal(op.signalName, timeoutAt === -1 ? Infinity : timeoutAt);
    if (signal) {
      signal.consumed = true;
      return { ok: true, value: signal.value };
    }
    return timeoutAt === -1 ? null : { ok: true, value: null };
  };

  const commandFor = (op: Operation<unknown>): WorkflowCommand => {
    switch (op.kind) {
      case "activity": {
        const o = op.options;
        const backoff = o.backoff === undefined ? undefined : Array.isArray(o.backoff) ? o.backoff : [o.backoff];
        const command: WorkflowCommand = {
          type: "schedule_activity",
          activity_type: op.activityType,
          arguments: encodePayload(op.args),
          retry_policy: {
            // 0 asks for unlimited attempts (the engine snapshots it as max_attempts: null).
            max_attempts: o.tries === undefined ? 1 : Math.max(0, o.tries),
            ...(backoff ? { backoff_seconds: backoff } : {}),
            non_retryable_error_types: o.nonRetryable ?? [],
          },
          ...(o.queue ? { queue: o.queue } : {}),
          ...(o.timeouts?.startToClose !== undefined ? { start_to_close_timeout: o.timeouts.startToClose } : {}),
          ...(o.timeouts?.scheduleToStart !== undefined
            ? { schedule_to_start_timeout: o.timeouts.scheduleToStart }
            : {}),
          ...(o.timeouts?.scheduleToClose !== undefined
            ? { schedule_to_close_timeout: o.timeouts.scheduleToClose }
            : {}),
          ...(o.timeouts?.heartbeat !== undefined ? { heartbeat_timeout: o.timeouts.heartbeat } : {}),
        };
        return command;
      }
      case "timer":
        return { type: "start_timer", delay_seconds: op.seconds };
      case "child": {
        const o = op.options;
        return {
          type: "start_child_workflow",
          workflow_type: op.workflowType,
          arguments: encodePayload(op.args),
          ...(o.workflowId ? { workflow_id: o.workflowId } : {}),
          ...(o.queue ? { queue: o.queue } : {}),
          ...(o.executionTimeoutSeconds !== undefined ? { execution_timeout_seconds: o.executionTimeoutSeconds } : {}),
          ...(o.runTimeoutSeconds !== undefined ? { run_timeout_seconds: o.runTimeoutSeconds } : {}),
          ...(o.parentClosePolicy ? { parent_close_policy: o.parentClosePolicy } : {}),
        };
      }
      case "signal":
        return {
          type: "open_signal_wait",
          signal_name: op.signalName,
          ...(op.timeoutSeconds !== undefined ? { timeout_seconds: op.timeoutSeconds } : {}),
        };
    }
  };

  const newCommands: WorkflowCommand[] = [];

  /** Returns the outcome of one leaf operation, or null while it is open (emitting a command if new). */
  const step = (op: Operation<unknown>): Outcome | null => {
    const opening = openings[position];
    if (op instanceof SignalWaitOperation && !(opening && opening.event_type === "SignalWaitOpened")) {
      // The signal was already in history when the code first reached this wait: it resolved
      // on the spot and no wait was ever opened.
      const buffered = nextSignal(op.signalName, opening ? history.indexOf(opening) : Infinity);
      if (buffered) {
        buffered.consumed = true;
        return { ok: true, value: buffered.value };
      }
    }
    position += 1;
    if (!opening) {
      newCommands.push(commandFor(op));
      return null;
    }
    const recordedKind = OPENING_KIND[opening.event_type];
    if (recordedKind !== op.kind) {
      throw new NonDeterminismError(
        `operation ${position}: code yielded ${op.kind}, history has ${opening.event_type}`,
      );
    }
    if (op instanceof ActivityOperation) return resolveActivity(op, opening);
    if (op instanceof TimerOperation) return resolveTimer(opening);
    if (op instanceof ChildWorkflowOperation) return resolveChild(op, opening);
    return resolveSignal(op, opening);
  };

  const resolve = (y: Yieldable): Outcome | null => {
    if (!(
      y instanceof AllOperation ||
      y instanceof ActivityOperation ||
      y instanceof TimerOperation ||
      y instanceof ChildWorkflowOperation ||
      y instanceof SignalWaitOperation
    )) {
      throw new InvalidYieldError(
        `workflow ${input.info.workflowType} yielded ${typeof y === "object" && y !== null ? (y as object).constructor.name : typeof y}; yield ctx.activity/sleep/child/waitForSignal/all operations`,
      );
    }
    if (y instanceof AllOperation) {
      const outcomes = y.operations.map(step);
      const failed = outcomes.find((o): o is { ok: false; error: Error } => o !== null && !o.ok);
      if (failed) return failed;
      if (outcomes.some((o) => o === null)) return null;
      return { ok: true, value: outcomes.map((o) => (o as { ok: true; value: unknown }).value) };
    }
    return step(y);
  };

  const ctx = new WorkflowContext(input.info, input.activityDefaults ?? (() => undefined));
  const gen = input.definition.run(ctx, ...input.args);
  let next: IteratorResult<Yieldable, unknown>;
  try {
    next = gen.next();
    for (;;) {
      if (next.done) break;
      const outcome = resolve(next.value);
      if (outcome === null) return { commands: newCommands, terminal: false };
      next = outcome.ok ? gen.next(outcome.value) : gen.throw(outcome.error);
    }
  } catch (e) {
    if (e instanceof NonDeterminismError || e instanceof InvalidYieldError) throw e;
    const error = e instanceof Error ? e : new Error(String(e));
    // An uncaught activity failure closes the run with the activity's own error type, so the
    // run's failure names what went wrong (e.g. PaymentDeclined) rather than the wrapper.
    const type = error instanceof ActivityFailure ? (error.failureType ?? error.name) : error.name;
    const flagged =
      error instanceof ActivityFailure
        ? error.nonRetryable
        : (error as Error & { nonRetryable?: unknown }).nonRetryable === true;
    return {
      commands: [
        {
          type: "fail_workflow",
          message: error.message,
          exception_type: type,
          ...(flagged ? { non_retryable: true } : {}),
        },
      ],
      terminal: true,
    };
  }
  if (position < openings.length) {
    throw new NonDeterminismError(
      `workflow finished after ${position} operations but history recorded ${openings.length}`,
    );
  }
  if (next.value instanceof ContinueAsNew) {
    return {
      commands: [
        {
          type: "continue_as_new",
          arguments: encodePayload(next.value.args),
          ...(next.value.workflowType ? { workflow_type: next.value.workflowType } : {}),
        },
      ],
      terminal: true,
    };
  }
  return { commands: [{ type: "complete_workflow", result: encodePayload(next.value ?? null) }], terminal: true };
}
