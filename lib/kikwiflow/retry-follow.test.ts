import { describe, expect, it } from "vitest";
import { followRetry } from "./retry-follow";
import type { Incident } from "./schemas";

const incident = (id: string, over: Partial<Incident> = {}): Incident => ({
  id,
  type: "FAILED_JOB",
  status: "OPEN",
  executionId: "task-1",
  createdAt: "2026-12-07T10:00:00.000Z",
  message: "Ledger entry checksum mismatch",
  ...over,
});
const retried = { incidentId: "inc-1", taskId: "task-1", incidentCreatedAt: "2026-12-07T10:00:00.000Z" };

describe("followRetry", () => {
  it("holds while the only incident of the task is the retried one, now RESOLVED", () => {
    expect(followRetry(retried, [incident("inc-1", { status: "RESOLVED" })])).toEqual({ kind: "holding" });
  });

  it("says the task failed again once it opened a newer incident, naming the newest one", () => {
    const second = incident("inc-2", { createdAt: "2026-12-07T10:00:01.000Z" });
    const third = incident("inc-3", { createdAt: "2026-12-07T10:00:05.000Z", message: "again" });
    const followUp = followRetry(retried, [incident("inc-1", { status: "RESOLVED" }), second, third]);
    expect(followUp).toEqual({ kind: "failed_again", incident: third });
  });

  it("ignores other tasks' incidents and incidents older than the retried one", () => {
    const otherTask = incident("inc-9", { executionId: "task-2", createdAt: "2026-12-07T10:00:09.000Z" });
    const older = incident("inc-0", { createdAt: "2026-12-07T09:59:00.000Z", status: "RESOLVED" });
    expect(followRetry(retried, [older, otherTask, incident("inc-1", { status: "RESOLVED" })])).toEqual({
      kind: "holding",
    });
  });

  it("holds when the retried incident named no task", () => {
    expect(followRetry({ ...retried, taskId: null }, [incident("inc-2", { executionId: null })])).toEqual({
      kind: "holding",
    });
  });
});
