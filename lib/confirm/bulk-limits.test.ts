import { describe, expect, it } from "vitest";
import { BULK_MAX_RUNS, WALK_LIMITS, boundedMembers } from "./bulk-limits";

describe("bulk limits", () => {
  it("plans at most BULK_MAX_RUNS members, in order, and says how many were left out", () => {
    const members = Array.from({ length: BULK_MAX_RUNS + 7 }, (_, i) => i);
    const { planned, left } = boundedMembers(members);
    expect(planned).toHaveLength(BULK_MAX_RUNS);
    expect(planned[0]).toBe(0);
    expect(planned.at(-1)).toBe(BULK_MAX_RUNS - 1);
    expect(left).toBe(7);
    expect(boundedMembers([1, 2], 5)).toEqual({ planned: [1, 2], left: 0 });
  });

  it("states whole seconds and minutes, and keeps every walk below the real server's four PHP workers", () => {
    for (const value of Object.values(WALK_LIMITS)) expect(Number.isInteger(value)).toBe(true);
    expect(WALK_LIMITS.scanConcurrency).toBeLessThan(4);
    expect(WALK_LIMITS.bulkReadConcurrency).toBeLessThan(4);
    expect(WALK_LIMITS.bulkSendConcurrency).toBeLessThan(4);
  });
});
