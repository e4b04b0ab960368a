import { retryDelayMs } from "./retry-policy";
import type { ExecutableTask } from "./schemas";

/**
 * A task's execution budget as the engine counts it. `executions` only grows; `retries` is the
 * engine's countdown, set to the policy's maxRetries when the task is created and again by a manual
 * retry (KikwiflowEngine.retryIncident@3b62f35), and the failure that would take it to 0 opens the
 * incident (DefaultRetryPolicyEvaluator.evaluate@3b62f35). So "execution 8 of 4" is not a thing the
 * engine means: after retries, executions pass maxRetries while retries start over. The delay after a
 * failure uses attemptIndex = executions, which a retry does not reset either, so the backoff after a
 * manual retry continues where it was (capped by maxInterval). Pure.
 */
export interface TaskBudget {
  readonly executions: number;
  readonly retries: number;
  /** The policy's maxRetries (executions per budget), null without a policy. */
  readonly maxExecutions: number | null;
  /** Retries were set back by a manual retry: without one, executions + retries = maxRetries. */
  readonly resetByRetry: boolean;
  /**
   * The delays the engine will apply to the coming failures, in seconds, in order; for a task in
   * ERROR, those that follow a manual retry. null: no policy (the engine's global interval, not
   * exposed) or an unreadable duration.
   */
  readonly comingDelaysSeconds: number[] | null;
}

export function taskBudget(task: ExecutableTask): TaskBudget {
  const executions = task.executions ?? 0;
  const retries = task.retries ?? 0;
  const policy = task.retryPolicy ?? null;
  const maxExecutions = policy?.maxRetries ?? null;
  const resetByRetry = maxExecutions !== null && executions + retries > maxExecutions;
  if (!policy) return { executions, retries, maxExecutions, resetByRetry, comingDelaysSeconds: null };
  // A task in ERROR runs again with retries = maxRetries once retried.
  const budget = task.status === "ERROR" ? policy.maxRetries : retries;
  const delays: number[] = [];
  // The failure with `budget - 1` retries left opens the incident: budget - 1 delays come first.
  for (let n = 0; n < budget - 1; n++) {
    const delay = retryDelayMs(policy, executions + n);
    if (delay === null) return { executions, retries, maxExecutions, resetByRetry, comingDelaysSeconds: null };
    delays.push(delay / 1000);
  }
  return { executions, retries, maxExecutions, resetByRetry, comingDelaysSeconds: delays };
}
