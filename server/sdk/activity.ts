import type { PayloadValue } from "../codec/codec";
import type { ActivityOptions } from "./workflow";

/**
 * Activities are plain async functions run at least once. The options given here are the
 * defaults a workflow's `ctx.activity(name, …)` picks up when this worker also registers the
 * activity; options passed at the call site win.
 */

export interface HeartbeatProgress {
  message?: string;
  current?: number;
  total?: number;
  unit?: string;
  details?: Record<string, unknown>;
}

export interface ActivityContext {
  /** Stable across retries and redeliveries: the idempotency key for side effects. */
  readonly activityExecutionId: string;
  /** Same value as `activityExecutionId`, named for what it is for. */
  readonly idempotencyKey: string;
  readonly activityAttemptId: string;
  readonly attempt: number;
  readonly activityType: string;
  readonly workflowId: string;
  readonly runId: string;
  readonly taskId: string;
  /** Aborted when the server says the attempt may not continue (run cancelled, attempt superseded) or the worker stops. */
  readonly signal: AbortSignal;
  /** Renews the lease and reports progress; resolves to whether the attempt may continue. */
  heartbeat(progress?: HeartbeatProgress): Promise<boolean>;
}

export interface ActivityDefinition {
  readonly kind: "activity";
  readonly name: string;
  readonly options: ActivityOptions;
  readonly run: (ctx: ActivityContext, ...args: PayloadValue[]) => Promise<unknown>;
}

export function defineActivity<A extends PayloadValue[]>(
  name: string,
  run: (ctx: ActivityContext, ...args: A) => Promise<unknown>,
  options: ActivityOptions = {},
): ActivityDefinition {
  return { kind: "activity", name, options, run: run as ActivityDefinition["run"] };
}

/**
 * Thrown by an activity to fail its execution at once, whatever attempts remain. Subclass it
 * and set `name` to give the failure a type (`class PaymentDeclined extends NonRetryableError`).
 * Any error carrying `nonRetryable: true` is treated the same way.
 */
export class NonRetryableError extends Error {
  readonly nonRetryable = true;
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** Thrown by an activity to fail this attempt as retryable, with an explicit failure type. */
export class ApplicationError extends Error {
  constructor(message: string, type?: string) {
    super(message);
    this.name = type ?? new.target.name;
  }
}
