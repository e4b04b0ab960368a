import { decodePayload } from "../codec/codec";
import type { PayloadValue } from "../codec/codec";
import type { HistoryEvent, WorkflowCommand } from "./protocol";
import { commandFor, failWorkflowCommand, returnedCommand } from "./replay-commands";
import {
  ActivityFailure,
  ActivityOperation,
  AllOperation,
  ChildWorkflowFailure,
  ChildWorkflowOperation,
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
 *  - an operation with no opening event is new: it becomes a command and the code stops there;
 *  - an applied update (`UpdateApplied`) runs its handler again right before the code receives the
 *    first outcome history decided after it: the code was waiting there when the update arrived.
 */

/** What the code receives for one yield; `at` is the history index of the event that decided it. */
type Outcome = { ok: true; value: unknown; at: number } | { ok: false; error: Error; at: number };
type Decided = { ok: true; value: unknown } | { ok: false; error: Error };

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

function sameSequence(a: HistoryEvent, b: HistoryEvent): boolean {
  const sa = num(a.payload.sequence);
  return sa !== null && sa === num(b.payload.sequence);
}

/**
 * The earliest closing event of `types` that names the opening event's id under one of `idKeys`,
 * or, when neither side carries an id, has the same `sequence`.
 */
function findClose(
  history: HistoryEvent[],
  opening: HistoryEvent,
  types: string[],
  idKeys: string[],
): HistoryEvent | undefined {
  const ids = idKeys.map((k) => str(opening.payload[k]));
  return history.find((e) => {
    if (!types.includes(e.event_type)) return false;
    const matchedById = idKeys.some((k, i) => ids[i] !== null && str(e.payload[k]) === ids[i]);
    if (matchedById) return true;
    const hasAnyId = idKeys.some((k, i) => ids[i] !== null && str(e.payload[k]) !== null);
    return !hasAnyId && sameSequence(opening, e);
  });
}

const ACTIVITY_CLOSES = ["ActivityCompleted", "ActivityFailed", "ActivityTimedOut", "ActivityCancelled"];
const CHILD_CLOSES = ["ChildRunCompleted", "ChildRunFailed", "ChildRunCancelled", "ChildRunTerminated"];

/** What the code sees for an activity whose closing event is `close`: its result, or the failure to throw. */
function activityOutcome(op: ActivityOperation<unknown>, close: HistoryEvent): Decided {
  const p = close.payload;
  const type = op.activityType;
  switch (close.event_type) {
    case "ActivityCompleted":
      return { ok: true, value: decodePayload(p.result, str(p.payload_codec)) };
    case "ActivityTimedOut":
      return {
        ok: false,
        error: new ActivityFailure(
          failureMessage(p, `activity ${type} timed out`),
          type,
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
          `activity ${type} was cancelled`,
          type,
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
          failureMessage(p, `activity ${type} failed`),
          type,
          str(p.exception_type) ?? str(p.exception_class),
          p.non_retryable === true,
          str(p.failure_category),
          null,
        ),
      };
  }
}

/** What the code sees for a child whose closing event is `close`: its output, or the failure to throw. */
function childOutcome(op: ChildWorkflowOperation<unknown>, close: HistoryEvent): Decided {
  const p = close.payload;
  if (close.event_type === "ChildRunCompleted") {
    return { ok: true, value: decodePayload(p.output ?? p.result, str(p.payload_codec)) };
  }
  const how = close.event_type.slice("ChildRun".length).toLowerCase();
  return {
    ok: false,
    error: new ChildWorkflowFailure(
      failureMessage(p, `child workflow ${op.workflowType} ${how}`),
      op.workflowType,
      str(p.child_status) ?? str(p.closed_reason),
      str(p.exception_type) ?? str(p.exception_class),
    ),
  };
}

interface DeliveredSignal {
  name: string;
  index: number;
  value: PayloadValue[];
  consumed: boolean;
}

/**
 * One entry per delivered signal (SignalReceived and SignalApplied share `signal_id`); waits
 * take them first-in first-out by name, which also covers a signal that arrived before the
 * code reached its wait.
 */
class SignalInbox {
  private readonly signals: DeliveredSignal[] = [];

  constructor(history: HistoryEvent[]) {
    const byKey = new Map<string, DeliveredSignal>();
    history.forEach((e, index) => {
      if (e.event_type !== "SignalReceived" && e.event_type !== "SignalApplied") return;
      const p = e.payload;
      const key = str(p.signal_id) ?? str(p.workflow_command_id) ?? `event:${index}`;
      if (byKey.has(key)) return;
      const raw = e.event_type === "SignalApplied" ? (p.value ?? p.arguments) : p.arguments;
      const signal = {
        name: str(p.signal_name) ?? "",
        index,
        value: asArgs(decodePayload(raw, str(p.payload_codec))),
        consumed: false,
      };
      byKey.set(key, signal);
      this.signals.push(signal);
    });
  }

  /** Consumes the oldest unconsumed signal `name` delivered at a history index below `before`. */
  take(name: string, before: number): DeliveredSignal | undefined {
    const signal = this.signals.find((sg) => !sg.consumed && sg.name === name && sg.index < before);
    if (!signal) return undefined;
    signal.consumed = true;
    return signal;
  }
}

function isYieldable(y: unknown): y is Yieldable {
  return (
    y instanceof AllOperation ||
    y instanceof ActivityOperation ||
    y instanceof TimerOperation ||
    y instanceof ChildWorkflowOperation ||
    y instanceof SignalWaitOperation
  );
}

/**
 * Pairs the operations the code yields with history, in order (the rules above): each call
 * resolves one yield to its recorded outcome, or to null when it is still open, collecting the
 * commands for operations history has not seen yet.
 */
class HistoryReplay {
  readonly newCommands: WorkflowCommand[] = [];
  private readonly openings: HistoryEvent[];
  private readonly inbox: SignalInbox;
  private readonly updates: AppliedUpdate[];
  private position = 0;
  private updatesApplied = 0;

  constructor(
    private readonly history: HistoryEvent[],
    private readonly workflowType: string,
  ) {
    this.openings = history.filter((e) => {
      const kind = OPENING_KIND[e.event_type];
      return kind !== undefined && !(kind === "timer" && isWaitTimer(e));
    });
    this.inbox = new SignalInbox(history);
    this.updates = appliedUpdates(history);
  }

  /**
   * Runs again, in order, the handlers of the updates history applied before index `before` that
   * have not run yet. They succeeded when first applied, so a missing handler or a throw now means
   * the code changed.
   */
  applyUpdates(ctx: WorkflowContext, before: number): void {
    for (let u = this.updates[this.updatesApplied]; u && u.index < before; u = this.updates[this.updatesApplied]) {
      this.updatesApplied += 1;
      const handler = ctx.updateHandler(u.name);
      if (!handler)
        throw new NonDeterminismError(`history applied update ${u.name}, which the code has no handler for`);
      try {
        handler(...u.args);
      } catch (e) {
        const why = e instanceof Error ? e.message : String(e);
        throw new NonDeterminismError(
          `update ${u.name} was applied in history but its handler threw on replay: ${why}`,
        );
      }
    }
  }

  /** The outcome of one yield (a leaf operation or `all`), or null while any part of it is open. */
  resolve(y: Yieldable): Outcome | null {
    if (!isYieldable(y)) {
      throw new InvalidYieldError(
        `workflow ${this.workflowType} yielded ${typeof y === "object" && y !== null ? (y as object).constructor.name : typeof y}; yield ctx.activity/sleep/child/waitForSignal/all operations`,
      );
    }
    if (y instanceof AllOperation) {
      const outcomes = y.operations.map((op) => this.step(op));
      const failed = outcomes.find((o): o is { ok: false; error: Error; at: number } => o !== null && !o.ok);
      if (failed) return failed;
      if (outcomes.some((o) => o === null)) return null;
      const done = outcomes as { ok: true; value: unknown; at: number }[];
      return { ok: true, value: done.map((o) => o.value), at: Math.max(-1, ...done.map((o) => o.at)) };
    }
    return this.step(y);
  }

  /** Every opening event in history must have been matched by an operation of the finished code. */
  assertAllReplayed(): void {
    if (this.position < this.openings.length) {
      throw new NonDeterminismError(
        `workflow finished after ${this.position} operations but history recorded ${this.openings.length}`,
      );
    }
  }

  /** Returns the outcome of one leaf operation, or null while it is open (emitting a command if new). */
  private step(op: Operation<unknown>): Outcome | null {
    const opening = this.openings[this.position];
    if (op instanceof SignalWaitOperation && !(opening && opening.event_type === "SignalWaitOpened")) {
      // The signal was already in history when the code first reached this wait: it resolved
      // on the spot and no wait was ever opened.
      const buffered = this.inbox.take(op.signalName, opening ? this.history.indexOf(opening) : Infinity);
      if (buffered) return { ok: true, value: buffered.value, at: buffered.index };
    }
    this.position += 1;
    if (!opening) {
      this.newCommands.push(commandFor(op));
      return null;
    }
    const recordedKind = OPENING_KIND[opening.event_type];
    if (recordedKind !== op.kind) {
      throw new NonDeterminismError(
        `operation ${this.position}: code yielded ${op.kind}, history has ${opening.event_type}`,
      );
    }
    if (op instanceof ActivityOperation) return this.resolveActivity(op, opening);
    if (op instanceof TimerOperation) return this.resolveTimer(opening);
    if (op instanceof ChildWorkflowOperation) return this.resolveChild(op, opening);
    return this.resolveSignal(op, opening);
  }

  /** Refuses an opening event whose recorded name differs from the one the code asks for. */
  private expectRecorded(recorded: string | null, expected: string, what: string): void {
    if (recorded !== null && recorded !== expected) {
      throw new NonDeterminismError(`operation ${this.position}: code ${what} ${expected}, history has ${recorded}`);
    }
  }

  private resolveActivity(op: ActivityOperation<unknown>, opening: HistoryEvent): Outcome | null {
    this.expectRecorded(str(opening.payload.activity_type), op.activityType, "scheduled activity");
    const close = findClose(this.history, opening, ACTIVITY_CLOSES, ["activity_execution_id"]);
    return close ? this.decidedBy(close, activityOutcome(op, close)) : null;
  }

  private resolveTimer(opening: HistoryEvent): Outcome | null {
    const close = findClose(this.history, opening, ["TimerFired", "TimerCancelled"], ["timer_id"]);
    if (!close) return null;
    return this.decidedBy(
      close,
      close.event_type === "TimerFired" ? { ok: true, value: undefined } : { ok: false, error: new TimerCancelled() },
    );
  }

  private resolveChild(op: ChildWorkflowOperation<unknown>, opening: HistoryEvent): Outcome | null {
    const recordedType = str(opening.payload.child_workflow_type) ?? str(opening.payload.workflow_type);
    this.expectRecorded(recordedType, op.workflowType, "started child");
    const close = findClose(this.history, opening, CHILD_CLOSES, [
      "child_call_id",
      "workflow_link_id",
      "child_workflow_run_id",
    ]);
    return close ? this.decidedBy(close, childOutcome(op, close)) : null;
  }

  /** A signal wait resolves to the next signal of its name, or to null once its timeout timer fired first. */
  private resolveSignal(op: SignalWaitOperation, opening: HistoryEvent): Outcome | null {
    this.expectRecorded(str(opening.payload.signal_name), op.signalName, "waits for signal");
    const waitId = str(opening.payload.signal_wait_id);
    const timeoutAt = this.history.findIndex(
      (e) =>
        e.event_type === "TimerFired" &&
        isWaitTimer(e) &&
        (waitId !== null ? str(e.payload.signal_wait_id) === waitId : sameSequence(opening, e)),
    );
    const signal = this.inbox.take(op.signalName, timeoutAt === -1 ? Infinity : timeoutAt);
    if (signal) return { ok: true, value: signal.value, at: signal.index };
    return timeoutAt === -1 ? null : { ok: true, value: null, at: timeoutAt };
  }

  private decidedBy(close: HistoryEvent, decided: Decided): Outcome {
    return { ...decided, at: this.history.indexOf(close) };
  }
}

interface AppliedUpdate {
  index: number;
  name: string;
  args: PayloadValue[];
}

/** The updates history applied (`UpdateApplied`, with the accepted arguments), oldest first; a failed update has none. */
function appliedUpdates(history: HistoryEvent[]): AppliedUpdate[] {
  const out: AppliedUpdate[] = [];
  history.forEach((e, index) => {
    if (e.event_type !== "UpdateApplied") return;
    const p = e.payload;
    out.push({ index, name: str(p.update_name) ?? "", args: updateArguments(p) });
  });
  return out;
}

/** An update's arguments as `UpdateAccepted`/`UpdateApplied` carry them: a serialised list and its codec. */
export function updateArguments(payload: Record<string, unknown>): PayloadValue[] {
  const raw = payload.arguments;
  if (raw === null || raw === undefined) return [];
  return asArgs(decodePayload(raw, str(payload.payload_codec)));
}

export function replayWorkflow(input: ReplayInput): ReplayResult {
  const replay = new HistoryReplay(input.history, input.info.workflowType);
  const ctx = new WorkflowContext(input.info, input.activityDefaults ?? (() => undefined));
  const gen = input.definition.run(ctx, ...input.args);
  let next: IteratorResult<Yieldable, unknown>;
  try {
    next = gen.next();
    while (!next.done) {
      const outcome = replay.resolve(next.value);
      if (outcome === null) return { commands: replay.newCommands, terminal: false };
      replay.applyUpdates(ctx, outcome.at);
      next = outcome.ok ? gen.next(outcome.value) : gen.throw(outcome.error);
    }
  } catch (e) {
    if (e instanceof NonDeterminismError || e instanceof InvalidYieldError) throw e;
    return { commands: [failWorkflowCommand(e)], terminal: true };
  }
  replay.assertAllReplayed();
  return { commands: [returnedCommand(next.value)], terminal: true };
}

/**
 * Replays the history as far as it goes and hands back the context, for a query or an update: the
 * handlers the code registered on the way see the state it reached, applied updates included.
 * Nothing is decided (no commands), and a run the history has closed is replayed to its end.
 */
export function replayState(input: ReplayInput): WorkflowContext {
  const replay = new HistoryReplay(input.history, input.info.workflowType);
  const ctx = new WorkflowContext(input.info, input.activityDefaults ?? (() => undefined));
  const gen = input.definition.run(ctx, ...input.args);
  try {
    let next = gen.next();
    while (!next.done) {
      const outcome = replay.resolve(next.value);
      if (outcome === null) break;
      replay.applyUpdates(ctx, outcome.at);
      next = outcome.ok ? gen.next(outcome.value) : gen.throw(outcome.error);
    }
    // The code waits here: every update history applied since arrived while it waited.
    replay.applyUpdates(ctx, Infinity);
  } catch (e) {
    // The run's own failure (the code threw) still leaves its handlers answerable; a replay that
    // disagrees with history does not.
    if (e instanceof NonDeterminismError || e instanceof InvalidYieldError) throw e;
  }
  return ctx;
}
