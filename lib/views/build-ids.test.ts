import { readFileSync } from "node:fs";
import { describe, expect, test } from "vitest";
import { taskQueueBuildIdsSchema } from "@/lib/dw/schemas-build-ids";
import { buildIdRows, rolloutHolds } from "./build-ids";

const snapshot = taskQueueBuildIdsSchema.parse(
  JSON.parse(readFileSync(new URL("../dw/fixtures/task-queue-build-ids.json", import.meta.url), "utf8")),
);

describe("build-id rows", () => {
  test("keep the server's order and read counts, tone, selection and conflicts from the real shape", () => {
    const rows = buildIdRows(snapshot);
    expect(rows.map((r) => [r.buildId, r.status, r.tone, r.selectedForNewStarts])).toEqual([
      ["2026.12.2", "active", "ok", true],
      ["2026.11.4", "draining", "warn", false],
      [null, "stale_only", "muted", false],
    ]);
    expect(rows[1]).toMatchObject({
      drainingWorkers: 1,
      staleWorkers: 1,
      totalWorkers: 2,
      runtimes: ["python", "typescript"],
      conflicts: [{ workflowType: "Checkout", fingerprints: 2 }],
      drainedAt: "2026-12-07T21:20:00Z",
      pendingMessage: "This build id has 3 pending workflow tasks but no active compatible worker.",
    });
  });

  test("offer only the actions whose effect a cohort lacks: no promote while draining or already selected", () => {
    const [current, previous, unversioned] = buildIdRows(snapshot);
    expect(current!.offers).toEqual({ promote: false, drain: true, resume: false });
    expect(previous!.offers).toEqual({ promote: false, drain: false, resume: true });
    expect(unversioned!.offers).toEqual({ promote: true, drain: true, resume: false });
  });
});

describe("a rollout read back", () => {
  test("confirms each action only when the cohort shows its effect", () => {
    expect(rolloutHolds(snapshot, "promote", "2026.12.2")).toBe(true);
    expect(rolloutHolds(snapshot, "promote", "2026.11.4")).toBe(false);
    expect(rolloutHolds(snapshot, "drain", "2026.11.4")).toBe(true);
    expect(rolloutHolds(snapshot, "drain", null)).toBe(false);
    expect(rolloutHolds(snapshot, "resume", null)).toBe(true);
    expect(rolloutHolds(snapshot, "resume", "2026.11.4")).toBe(false);
    expect(rolloutHolds(snapshot, "resume", "gone")).toBe(false);
  });
});
