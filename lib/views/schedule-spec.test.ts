import { describe, expect, it } from "vitest";
import { durationSeconds, intervalUnit, specParts, utcIso } from "./schedule-spec";
import { backfillFireCount, nextFires } from "./schedule-fires";
import { loadCronWords } from "./cron-words";

const at = (iso: string) => Date.parse(iso);
const iso = (ms: number) => new Date(ms).toISOString();

describe("the spec in words", () => {
  it("says a cron expression in each console locale, on the 24-hour clock", async () => {
    const weekdays = "0 2 * * 1-5";
    const en = await loadCronWords("en");
    expect(en(weekdays)).toBe("At 02:00, Monday through Friday");
    expect(en("*/15 * * * *")).toBe("Every 15 minutes");
    expect((await loadCronWords("de"))(weekdays)).toContain("Montag");
    expect((await loadCronWords("fr"))(weekdays)).toContain("lundi");
    expect((await loadCronWords("pt-BR"))(weekdays)).toContain("segunda");
    expect((await loadCronWords("ja"))(weekdays)).toContain("月曜日");
    expect((await loadCronWords("es"))(weekdays)).toContain("lunes");
    expect((await loadCronWords("uk"))(weekdays)).toContain("понеділок");
    expect((await loadCronWords("zh-Hans"))(weekdays)).toContain("星期一");
    // English stays English once the other languages are loaded; an unknown locale reads English.
    expect(en(weekdays)).toBe("At 02:00, Monday through Friday");
    expect((await loadCronWords("xx"))(weekdays)).toBe("At 02:00, Monday through Friday");
  });

  it("says nothing of an expression it cannot read rather than guess", async () => {
    expect((await loadCronWords("en"))("every night")).toBeNull();
  });

  it("shows expressions without words until the words are loaded", () => {
    expect(specParts({ cron_expressions: ["0 6 * * *"] })).toEqual([
      { kind: "cron", expression: "0 6 * * *", words: null },
    ]);
  });

  it("lists cron parts then interval parts with their seconds", async () => {
    const parts = specParts(
      { cron_expressions: ["0 6 * * *"], intervals: [{ every: "PT15M", offset: "PT1M" }] },
      await loadCronWords("en"),
    );
    expect(parts).toEqual([
      { kind: "cron", expression: "0 6 * * *", words: "At 06:00" },
      { kind: "interval", every: "PT15M", seconds: 900, offsetSeconds: 60 },
    ]);
  });

  it("counts durations as the engine does (a month is 30 days, a year 365)", () => {
    expect(durationSeconds("PT30M")).toBe(1800);
    expect(durationSeconds("P1M")).toBe(30 * 86_400);
    expect(durationSeconds("P1Y")).toBe(365 * 86_400);
    expect(durationSeconds("P1DT2H")).toBe(86_400 + 7200);
    expect(durationSeconds("15 minutes")).toBeNull();
    expect(durationSeconds("PT")).toBeNull();
    expect(intervalUnit(900)).toEqual({ count: 15, unit: "minute" });
    expect(intervalUnit(7200)).toEqual({ count: 2, unit: "hour" });
    expect(intervalUnit(90)).toEqual({ count: 90, unit: "second" });
  });
});

describe("next fires", () => {
  it("follows the spec's time zone across the spring daylight-saving change", () => {
    // Europe/Berlin moves from +01:00 to +02:00 on Sunday 2026-03-29.
    const fires = nextFires(
      { cron_expressions: ["0 2 * * 1-5"], timezone: "Europe/Berlin" },
      at("2026-03-26T12:00:00Z"),
      3,
    );
    expect(fires.map(iso)).toEqual([
      "2026-03-27T01:00:00.000Z",
      "2026-03-30T00:00:00.000Z",
      "2026-03-31T00:00:00.000Z",
    ]);
  });

  it("aligns intervals to the epoch plus the offset, strictly after the instant", () => {
    const spec = { intervals: [{ every: "PT15M", offset: "PT5M" }] };
    expect(nextFires(spec, at("2026-01-01T10:05:00Z"), 2).map(iso)).toEqual([
      "2026-01-01T10:20:00.000Z",
      "2026-01-01T10:35:00.000Z",
    ]);
  });

  it("takes the earliest of every part, once when two parts agree", () => {
    const spec = { cron_expressions: ["0 * * * *"], intervals: [{ every: "PT30M" }], timezone: "UTC" };
    expect(nextFires(spec, at("2026-01-01T10:10:00Z"), 3).map(iso)).toEqual([
      "2026-01-01T10:30:00.000Z",
      "2026-01-01T11:00:00.000Z",
      "2026-01-01T11:30:00.000Z",
    ]);
  });

  it("reads day-of-month OR day-of-week, as Unix cron and the engine do", () => {
    const fires = nextFires({ cron_expressions: ["0 0 1 * 1"] }, at("2026-06-01T00:00:00Z"), 2);
    // 2026-06-01 is a Monday (already past), the next Monday is the 8th.
    expect(fires.map(iso)).toEqual(["2026-06-08T00:00:00.000Z", "2026-06-15T00:00:00.000Z"]);
  });

  it("has no fires for an empty or unreadable spec", () => {
    expect(nextFires({}, 0, 5)).toEqual([]);
    expect(nextFires({ cron_expressions: ["nonsense"], intervals: [{ every: "soon" }] }, 0, 5)).toEqual([]);
  });
});

describe("a backfill's dry-run count", () => {
  const everyHour = { cron_expressions: ["0 * * * *"] };

  it("counts [start, end): a fire at the start is in, one at the end is not", () => {
    expect(backfillFireCount(everyHour, at("2026-01-01T00:00:00Z"), at("2026-01-01T03:00:00Z"))).toEqual({
      count: 3,
      more: false,
      first: at("2026-01-01T00:00:00Z"),
      last: at("2026-01-01T02:00:00Z"),
    });
  });

  it("caps the count and says there are more", () => {
    const count = backfillFireCount(everyHour, at("2026-01-01T00:00:00Z"), at("2026-02-01T00:00:00Z"), 100);
    expect(count).toMatchObject({ count: 100, more: true });
  });

  it("is empty for a range that ends before it starts", () => {
    expect(backfillFireCount(everyHour, at("2026-01-02T00:00:00Z"), at("2026-01-01T00:00:00Z")).count).toBe(0);
  });
});

describe("the backfill form's times", () => {
  it("reads a 24-hour UTC time with a space or a T", () => {
    expect(utcIso("2026-01-05 02:00")).toBe("2026-01-05T02:00:00Z");
    expect(utcIso(" 2026-01-05T23:59:30 ")).toBe("2026-01-05T23:59:30Z");
  });

  it("refuses what is not such a time, an impossible date included", () => {
    expect(utcIso("05/01/2026 2:00 AM")).toBeNull();
    expect(utcIso("2026-02-30 10:00")).toBeNull();
    expect(utcIso("2026-01-05 24:00")).toBeNull();
    expect(utcIso("")).toBeNull();
  });
});
