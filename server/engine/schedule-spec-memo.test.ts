import { describe, expect, test } from "vitest";
import { nextCronOccurrence } from "./schedule-spec";

/**
 * The next-occurrence memo (schedule-spec.ts `lastNext`): within one second every instant has the
 * same next cron time, so the memo may answer; a new second, zone or expression searches again.
 */
describe("nextCronOccurrence's per-second memo", () => {
  const minute = Date.parse("2026-03-29T00:59:00.000Z");

  test("answers every instant of a second alike and searches again in the next second", () => {
    expect(nextCronOccurrence("* * * * *", minute - 1000, "UTC")).toBe(minute);
    expect(nextCronOccurrence("* * * * *", minute - 1, "UTC")).toBe(minute);
    // The boundary itself: strictly after, so the next minute, not the memo's answer.
    expect(nextCronOccurrence("* * * * *", minute, "UTC")).toBe(minute + 60_000);
    expect(nextCronOccurrence("* * * * *", minute + 999, "UTC")).toBe(minute + 60_000);
    expect(nextCronOccurrence("* * * * *", minute + 1000, "UTC")).toBe(minute + 60_000);
  });

  test("keeps zones and expressions apart (Berlin's 02:00 does not exist on 2026-03-29)", () => {
    const at = Date.parse("2026-03-28T23:00:00.000Z");
    expect(nextCronOccurrence("0 2 * * *", at, "UTC")).toBe(Date.parse("2026-03-29T02:00:00.000Z"));
    expect(nextCronOccurrence("0 3 * * *", at, "UTC")).toBe(Date.parse("2026-03-29T03:00:00.000Z"));
    expect(nextCronOccurrence("0 2 * * *", at, "Europe/Berlin")).not.toBe(Date.parse("2026-03-29T02:00:00.000Z"));
  });
});
