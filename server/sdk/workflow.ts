import type { PayloadValue } from "../codec/codec";

/**
 * Workflow authoring. A workflow is a generator function replayed from history on every workflow
 * task: it yields operations (activity, timer, child, signal wait) and receives their results,
 * or has their failures thrown into it, exactly as the history recorded them. `yield op` gives an
 * untyped result; `yield* op` gives the typed one.
 */

export interface ActivityTimeouts {
  /** Seconds one attempt may run. */
  startToClose?: number;
  /** Seconds the task may wait in the queue before an attempt claims it. */
  scheduleToStart?: number;
  /** Seconds for the whole execution, retries included. */
  scheduleToClose?: number;
  /** Seconds between heartbeats before the attempt is considered lost. */
  heartbeat?: number;
}

export interface ActivityOptions {
  /** Attempts allowed (default 1, as Durable Workflow defines it); 0 means unlimited. */
  tries?: number;
  /** Seconds before each retry: `backoff[n-1]` after attempt n, the last entry reused. */
  backoff?: number | number[];
  /** Error types (the failure `type`, i.e. the error's `name`) that must not be retried. */
  nonRetryable?: string[];
  timeouts?: ActivityTimeouts;
  /** Task queue of the activity; defaults to the workflow's. */
  queue?: string;
}

export interface ChildWorkflowOptions {
  workflowId?: string;
  queue?: string;
  executionTimeoutSeconds?: number;
  runTimeoutSeconds?: number;
  parentClosePolicy?: "abandon" | "request_cancel" | "terminate";
}

export type Yieldable = Operation<unknown> | AllOperation<unknown[]>;

abstract class OperationBase<T> {
  *[Symbol.iterator](): Generator<Yieldable, T, unknown> {
    return (yield this as unknown as Yieldable) as T;
  }
}

export class ActivityOperation<T> extends OperationBase<T> {
  readonly kind = "activity";
  constructor(
    readonly activityType: string,
    readonly args: unknown[],
    readonly options: ActivityOptions,
  ) {
    super();
  }
}

export class TimerOperation extends OperationBase<void> {
  readonly kind = "timer";
  constructor(readonly seconds: number) {
    super();
  }
}

export class ChildWorkflowOperation<T> extends OperationBase<T> {
  readonly kind = "child";
  constructor(
    readonly workflowType: string,
    readonly args: unknown[],
    readonly options: ChildWorkflowOptions,
  ) {
    super();
  }
}

/** Resolves to the signal's arguments, or null when the wait timed out. */
export class SignalWaitOperation extends OperationBase<PayloadValue[] | null> {
  readonly kind = "signal";
  constructor(
    readonly signalName: string,
    readonly timeoutSeconds: number | undefined,
  ) {
    super();
  }
}

export type Operation<T> = ActivityOperation<T> | TimerOperation | ChildWorkflowOperation<T> | SignalWaitOperation;

/** Runs operations side by side; resolves when all have, or throws the first failure in order. */
export class AllOperation<T extends unknown[]> extends OperationBase<T> {
  readonly kind = "all";
  constructor(readonly operations: Operation<unknown>[]) {
    super();
  }
}

/** Returned (not thrown) from a workflow to close this run and start the next one. */
export class ContinueAsNew {
  constructor(
    readonly args: unknown[],
    readonly workflowType: string | undefined,
  ) {}
}

export interface WorkflowInfo {
  workflowId: string;
  runId: string;
  workflowType: string;
  taskQueue: string | null;
}

/** Answers a workflow query from the state the replayed code holds; its value must be JSON. */
export type QueryHandler = (...args: PayloadValue[]) => unknown;

/**
 * Changes the workflow's state and answers the caller; synchronous, deterministic, its value JSON.
 * It runs on a workflow task carrying the update, and again on every later replay, in the place
 * history recorded it (`UpdateApplied`). A throw fails the update (non-retryable when the error
 * carries `nonRetryable: true`, e.g. a `NonRetryableError`) and leaves the state untouched.
 */
export type UpdateHandler = (...args: PayloadValue[]) => unknown;

export class WorkflowContext {
  private readonly queryHandlers = new Map<string, QueryHandler>();
  private readonly updateHandlers = new Map<string, UpdateHandler>();

  constructor(
    readonly info: WorkflowInfo,
    private readonly activityDefaults: (activityType: string) => ActivityOptions | undefined,
  ) {}

  /**
   * Answers the query `name` with `handler` from here on. Registered while the code replays, so the
   * handler's closure sees the state the history has built when a query task replays the run.
   */
  setQueryHandler(name: string, handler: QueryHandler): void {
    this.queryHandlers.set(name, handler);
  }

  queryHandler(name: string): QueryHandler | undefined {
    return this.queryHandlers.get(name);
  }

  /** Applies the update `name` with `handler` from here on; registered while the code replays, like a query handler. */
  setUpdateHandler(name: string, handler: UpdateHandler): void {
    this.updateHandlers.set(name, handler);
  }

  updateHandler(name: string): UpdateHandler | undefined {
    return this.updateHandlers.get(name);
  }

  activity<T = PayloadValue>(
    activityType: string,
    args: unknown[] = [],
    options: ActivityOptions = {},
  ): ActivityOperation<T> {
    const defaults = this.activityDefaults(activityType) ?? {};
    return new ActivityOperation<T>(activityType, args, {
      ...defaults,
      ...options,
      timeouts: { ...defaults.timeouts, ...options.timeouts },
    });
  }

  sleep(seconds: number): TimerOperation {
    return new TimerOperation(seconds);
  }

  child<T = PayloadValue>(
    workflowType: string,
    args: unknown[] = [],
    options: ChildWorkflowOptions = {},
  ): ChildWorkflowOperation<T> {
    return new ChildWorkflowOperation<T>(workflowType, args, options);
  }

  waitForSignal(signalName: string, timeoutSeconds?: number): SignalWaitOperation {
    return new SignalWaitOperation(signalName, timeoutSeconds);
  }

  all<T extends unknown[]>(operations: { [K in keyof T]: Operation<T[K]> }): AllOperation<T> {
    return new AllOperation<T>(operations as Operation<unknown>[]);
  }

  continueAsNew(args: unknown[] = [], options: { workflowType?: string } = {}): ContinueAsNew {
    return new ContinueAsNew(args, options.workflowType);
  }
}

export type WorkflowGenerator = Generator<Yieldable, unknown, unknown>;

/**
 * The queries, signals and updates a workflow declares, registered with the worker as its command
 * contract (sdk-python 2.12.0 worker.py `_workflow_command_contract`). A start then copies it into
 * `WorkflowStarted` as `declared_*`, and the server admits only the declared signals and updates: a
 * workflow that declares a contract must name every signal it waits for and update it handles.
 */
export interface WorkflowCommandContract {
  queries: readonly string[];
  signals: readonly string[];
  updates?: readonly string[];
}

export interface WorkflowDefinition {
  readonly kind: "workflow";
  readonly name: string;
  readonly run: (ctx: WorkflowContext, ...args: PayloadValue[]) => WorkflowGenerator;
  /** Registered only when given: without one the server admits any signal, as before. */
  readonly contract?: WorkflowCommandContract;
}

export function defineWorkflow<A extends PayloadValue[]>(
  name: string,
  run: (ctx: WorkflowContext, ...args: A) => WorkflowGenerator,
  options: { contract?: WorkflowCommandContract } = {},
): WorkflowDefinition {
  return { kind: "workflow", name, run: run as WorkflowDefinition["run"], ...options };
}

/** The error a workflow sees when an activity failed terminally (retries exhausted, non-retryable, timed out). */
export class ActivityFailure extends Error {
  constructor(
    message: string,
    readonly activityType: string,
    readonly failureType: string | null,
    readonly nonRetryable: boolean,
    readonly failureCategory: string | null,
    readonly timeoutKind: string | null,
  ) {
    super(message);
    this.name = "ActivityFailure";
  }
}

export class ChildWorkflowFailure extends Error {
  constructor(
    message: string,
    readonly workflowType: string,
    readonly childStatus: string | null,
    readonly failureType: string | null,
  ) {
    super(message);
    this.name = "ChildWorkflowFailure";
  }
}

export class TimerCancelled extends Error {
  constructor() {
    super("timer cancelled");
    this.name = "TimerCancelled";
  }
}

/** Workflow code made different decisions than the recorded history: the task fails, history is untouched. */
export class NonDeterminismError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "NonDeterminismError";
  }
}

/** Workflow code yielded something that is not an operation: a bug the task failure surfaces until fixed. */
export class InvalidYieldError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "InvalidYieldError";
  }
}
