import { describe, expect, it } from "vitest";
import {
  afterTone,
  cappedNote,
  categoryList,
  firstInBucket,
  firstOf,
  limitValues,
  refusals,
  shownBuckets,
} from "@/lib/views/bulk-panel";
import { repairPlan } from "@/lib/confirm/bulk";
import { BULK_TRACK_FOR_MS, WALK_LIMITS, boundedMembers } from "@/lib/confirm/bulk-limits";

describe("shownBuckets", () => {
  const order = ["send", "skip_closed", "skip_not_allowed", "skip_unreadable"] as const;

  it("states the buckets that hold items, in the flow's order", () => {
    const counts = { send: 0, skip_closed: 2, skip_not_allowed: 0, skip_unreadable: 1 };
    expect(shownBuckets(order, counts)).toEqual(["skip_closed", "skip_unreadable"]);
  });

  it("keeps the bucket the panel always states, even at zero, in its place", () => {
    const counts = { send: 0, skip_closed: 2, skip_not_allowed: 0, skip_unreadable: 0 };
    expect(shownBuckets(order, counts, "send")).toEqual(["send", "skip_closed"]);
    expect(shownBuckets(order, counts, "skip_unreadable")).toEqual(["skip_closed", "skip_unreadable"]);
  });
});

describe("firstInBucket", () => {
  const items = ["a", "b", "c", "d", "e", "f"].map((id, index) => ({ id, bucket: index % 2 ? "skip" : "send" }));

  it("names the first items of one bucket in plan order, up to the limit", () => {
    expect(firstInBucket(items, "send", 2).map((item) => item.id)).toEqual(["a", "c"]);
    expect(firstInBucket(items, "skip", 5).map((item) => item.id)).toEqual(["b", "d", "f"]);
    expect(firstInBucket(items, "gone", 3)).toEqual([]);
  });

  it("names the same runs as the repair plan's samples", () => {
    const debug = (liveness: string) => ({ execution: { liveness_state: liveness, repair_attention: true } });
    const runs = ["1", "2", "3", "4", "5"].map((runId, index) => ({
      workflowId: `w${runId}`,
      runId,
      debug: index === 1 ? null : debug("repair_needed"),
    }));
    const plan = repairPlan(runs);
    for (const bucket of ["repair", "skip_unreadable"] as const)
      expect(firstInBucket(plan.runs, bucket, 3)).toEqual(plan.samples[bucket]);
  });
});

describe("firstOf", () => {
  it("cuts a list and counts what it left off", () => {
    expect(firstOf([1, 2, 3, 4, 5], 3)).toEqual({ shown: [1, 2, 3], more: 2 });
    expect(firstOf([1, 2], 3)).toEqual({ shown: [1, 2], more: 0 });
  });
});

describe("refusals", () => {
  it("states refused and unanswered commands only when there are some", () => {
    expect(refusals({ rejected: 0, errors: 0 })).toBeNull();
    expect(refusals({ rejected: 1, errors: 0 })).toEqual({ rejected: 1, errors: 0 });
    expect(refusals({ rejected: 0, errors: 2 })).toEqual({ rejected: 0, errors: 2 });
  });
});

describe("afterTone", () => {
  it("is bad while anything went wrong, ok once settled, and plain while waiting", () => {
    expect(afterTone({ settled: true }, true)).toBe("bad");
    expect(afterTone({ settled: false }, true)).toBe("bad");
    expect(afterTone({ settled: true }, false)).toBe("ok");
    expect(afterTone({ settled: false }, false)).toBeNull();
  });
});

describe("categoryList", () => {
  it("lists each failure category with its count, or nothing", () => {
    expect(categoryList({ application: 2, timeout: 1 })).toBe("application × 2, timeout × 1");
    expect(categoryList({})).toBeNull();
  });
});

describe("cappedNote", () => {
  it("says how many of a larger group one plan covers", () => {
    const members = Array.from({ length: 7 }, (_, index) => index);
    expect(cappedNote(boundedMembers(members, 5))).toEqual({ limit: 5, total: 7 });
  });

  it("says nothing when the plan covers the whole group", () => {
    expect(cappedNote(boundedMembers([1, 2, 3], 5))).toBeNull();
    expect(cappedNote(boundedMembers([1, 2, 3], 3))).toBeNull();
  });
});

describe("limitValues", () => {
  it("states the flow's own tracking time in minutes beside the shared bounds", () => {
    expect(limitValues(2 * 60_000)).toEqual({
      reads: WALK_LIMITS.bulkReadConcurrency,
      sends: WALK_LIMITS.bulkSendConcurrency,
      interval: WALK_LIMITS.trackIntervalSeconds,
      minutes: 2,
      cacheMinutes: WALK_LIMITS.closedCacheMinutes,
    });
    expect(limitValues(BULK_TRACK_FOR_MS).minutes).toBe(WALK_LIMITS.trackForMinutes);
  });
});
