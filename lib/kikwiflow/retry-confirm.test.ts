import { describe, expect, it } from "vitest";
import { baselineOf, judgeRetry } from "./retry-confirm";
import type { ExecutableTask, Incident } from "./schemas";

const task = (over: Partial<ExecutableTask> = {}): ExecutableTask => ({
  id: "task-1",
  status: "ERROR",
  executions: 1,
  retries: 0,
  error: "ledger corrupted",
  retryPolicy: { strategy: "LINEAR", maxRetries: 5, intervals: ["PT0.3S"] },
  ...over,
});
const incident = (status: Incident["status"]): Incident => ({ id: "inc-1", type: "FAILED_JOB", status });

describe("judgeRetry", () => {
  const baseline = baselineOf(task());

  it("confirms only when the incident is RESOLVED and the task PENDING with the policy's retries", () => {
    const verdict = judgeRetry(baseline, {
      kind: "read",
      incident: incident("RESOLVED"),
      task: task({ status: "PENDING", retries: 5, error: null }),
    });
    expect(verdict).toEqual({
      phase: "confirmed",
      how: "pending",
      incidentStatus: "RESOLVED",
      taskStatus: "PENDING",
      retries: 5,
      executions: 1,
    });
  });

  it("keeps waiting while the incident is still OPEN or the retries are not restored yet", () => {
    expect(judgeRetry(baseline, { kind: "read", incident: incident("OPEN"), task: task() }).phase).toBe("awaiting");
    const halfway = judgeRetry(baseline, {
      kind: "read",
      incident: incident("RESOLVED"),
      task: task({ status: "PENDING", retries: 0 }),
    });
    expect(halfway).toEqual({ phase: "awaiting", incidentStatus: "RESOLVED", taskStatus: "PENDING", retries: 0 });
  });

  it("counts a task the engine already executed again as proof, with what it shows now", () => {
    const verdict = judgeRetry(baseline, {
      kind: "read",
      incident: incident("RESOLVED"),
      task: task({ status: "ERROR", executions: 2, retries: 0 }),
    });
    expect(verdict).toMatchObject({ phase: "confirmed", how: "ran_again", taskStatus: "ERROR", executions: 2 });
  });

  it("says the instance moved on when it is gone (finished) or the task left it", () => {
    expect(judgeRetry(baseline, { kind: "instance_gone" })).toEqual({ phase: "moved_on", instanceFinished: true });
    expect(judgeRetry(baseline, { kind: "read", incident: incident("RESOLVED"), task: null })).toEqual({
      phase: "moved_on",
      instanceFinished: false,
    });
  });

  it("expects the engine's fallback of 3 retries for a task without a policy", () => {
    const bare = baselineOf(task({ retryPolicy: null }));
    expect(bare.restoredRetries).toBe(3);
    const read = { kind: "read", incident: incident("RESOLVED") } as const;
    expect(judgeRetry(bare, { ...read, task: task({ status: "PENDING", retries: 3 }) }).phase).toBe("confirmed");
    expect(judgeRetry(bare, { ...read, task: task({ status: "PENDING", retries: 5 }) }).phase).toBe("awaiting");
  });
});
