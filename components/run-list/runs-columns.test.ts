import { describe, expect, it } from "vitest";
import { clipMiddle } from "@/components/run-list/runs-columns";

describe("clipMiddle", () => {
  it("keeps short ids whole and long ones by both ends, at the column's character budget", () => {
    expect(clipMiddle("order:42.declined")).toBe("order:42.declined");
    const long = "shipment-batch-mx6dil6d-0042";
    const clipped = clipMiddle(long);
    expect(Array.from(clipped)).toHaveLength(22);
    expect(clipped.startsWith("shipment-batc")).toBe(true);
    expect(clipped.endsWith("6d-0042")).toBe(true);
    // Code points, not UTF-16 units: an emoji is never cut in half.
    expect(clipMiddle("😀".repeat(30), 10)).toBe(`${"😀".repeat(6)}…${"😀".repeat(3)}`);
  });
});
