import { describe, expect, it } from "vitest";
import { parseScheduleActionRequest } from "./schedule-commands";

/** The handler's parse of a schedule action: it never trusts the browser's shape. */
describe("schedule action requests", () => {
  it("needs a note to pause or resume, at most 1000 characters", () => {
    expect(parseScheduleActionRequest({ action: "pause", scheduleId: "s", note: " " })).toEqual({
      ok: false,
      message: "note: A note is required.",
    });
    expect(parseScheduleActionRequest({ action: "resume", scheduleId: "s", note: "x".repeat(1001) }).ok).toBe(false);
    expect(parseScheduleActionRequest({ action: "pause", scheduleId: "s", note: "deploy" })).toMatchObject({
      ok: true,
      request: { note: "deploy" },
    });
  });

  it("takes only the platform's overlap policies for a trigger", () => {
    expect(parseScheduleActionRequest({ action: "trigger", scheduleId: "s", overlapPolicy: "allow_all" }).ok).toBe(
      true,
    );
    expect(parseScheduleActionRequest({ action: "trigger", scheduleId: "s", overlapPolicy: "sometimes" }).ok).toBe(
      false,
    );
    expect(parseScheduleActionRequest({ action: "trigger", scheduleId: "s" }).ok).toBe(true);
  });

  it("needs a backfill range that ends after it starts, in ISO-8601 with an offset", () => {
    const range = { action: "backfill", scheduleId: "s", startTime: "2026-01-01T00:00:00Z" };
    expect(parseScheduleActionRequest({ ...range, endTime: "2026-01-02T00:00:00+01:00" }).ok).toBe(true);
    expect(parseScheduleActionRequest({ ...range, endTime: "2026-01-01T00:00:00Z" })).toEqual({
      ok: false,
      message: "endTime: The end must be after the start.",
    });
    expect(parseScheduleActionRequest({ ...range, endTime: "tomorrow" }).ok).toBe(false);
  });

  it("deletes only with the id typed again", () => {
    expect(parseScheduleActionRequest({ action: "delete", scheduleId: "nightly", confirmId: "nightly" }).ok).toBe(true);
    expect(parseScheduleActionRequest({ action: "delete", scheduleId: "nightly", confirmId: "night" })).toEqual({
      ok: false,
      message: "confirmId: Type the schedule id to delete it.",
    });
  });

  it("refuses unknown actions and extra fields", () => {
    expect(parseScheduleActionRequest({ action: "update", scheduleId: "s" }).ok).toBe(false);
    expect(parseScheduleActionRequest({ action: "trigger", scheduleId: "s", spec: {} }).ok).toBe(false);
    expect(parseScheduleActionRequest({ action: "trigger", scheduleId: "" }).ok).toBe(false);
  });
});
