import { describe, expect, it } from "vitest";
import type { ExecutableTask } from "./schemas";
import { taskBudget } from "./task-budget";

/** kiki-exhausted-backoff's task: EXPONENTIAL_BACKOFF, maxRetries 3, PT0.2S × 2, max PT1S. */
const backoff = (over: Partial<ExecutableTask>): ExecutableTask => ({
  id: "t",
  status: "PENDING",
  retryPolicy: {
    strategy: "EXPONENTIAL_BACKOFF",
    maxRetries: 3,
    initialInterval: "PT0.2S",
    multiplier: 2,
    maxInterval: "PT1S",
  },
  ...over,
});

describe("taskBudget", () => {
  it("before any failure: the whole budget and the policy's own delays", () => {
    expect(taskBudget(backoff({ executions: 0, retries: 3 }))).toEqual({
      executions: 0,
      retries: 3,
      maxExecutions: 3,
      resetByRetry: false,
      comingDelaysSeconds: [0.2, 0.4],
    });
  });

  it("exhausted in ERROR: what a retry brings, with the backoff continuing from the executions so far", () => {
    const budget = taskBudget(backoff({ status: "ERROR", executions: 3, retries: 0 }));
    expect(budget).toMatchObject({ executions: 3, retries: 0, resetByRetry: false });
    // attemptIndex 3 and 4: 1.6 s and 3.2 s, both capped at PT1S.
    expect(budget.comingDelaysSeconds).toEqual([1, 1]);
  });

  it("after manual retries: executions past maxRetries, retries set back, said as a reset", () => {
    const budget = taskBudget(backoff({ status: "PENDING", executions: 8, retries: 3 }));
    expect(budget).toMatchObject({ executions: 8, retries: 3, maxExecutions: 3, resetByRetry: true });
    expect(budget.comingDelaysSeconds).toEqual([1, 1]);
  });

  it("one retry left: the next failure opens the incident, no delay comes", () => {
    expect(taskBudget(backoff({ executions: 2, retries: 1 })).comingDelaysSeconds).toEqual([]);
  });

  it("knows no delays without a policy (the engine's global interval is not exposed)", () => {
    expect(taskBudget({ id: "t", status: "PENDING", executions: 1, retries: 2 }).comingDelaysSeconds).toBeNull();
  });
});
