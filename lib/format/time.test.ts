import { describe, expect, it } from "vitest";
import { formatDateTime, formatDuration, formatRelative, formatTime, parseTimestamp } from "@/lib/format/time";

describe("parseTimestamp", () => {
  it("reads both server ISO forms as the same instant", () => {
    const micro = parseTimestamp("2026-04-13T12:00:00.123456Z");
    const offset = parseTimestamp("2026-04-13T14:00:00.123+02:00");
    expect(micro?.toISOString()).toBe("2026-04-13T12:00:00.123Z");
    expect(offset?.getTime()).toBe(micro?.getTime());
    expect(parseTimestamp("2026-04-13T12:00:00+00:00")?.toISOString()).toBe("2026-04-13T12:00:00.000Z");
    expect(parseTimestamp("2026-04-13T12:00:00+0000")?.toISOString()).toBe("2026-04-13T12:00:00.000Z");
  });

  it("accepts epoch milliseconds and Dates, rejects garbage", () => {
    expect(parseTimestamp(0)?.toISOString()).toBe("1970-01-01T00:00:00.000Z");
    expect(parseTimestamp(new Date("2026-01-01T00:00:00Z"))?.getUTCFullYear()).toBe(2026);
    expect(parseTimestamp("yesterday")).toBeNull();
    expect(parseTimestamp("2026-04-13")).toBeNull();
    expect(parseTimestamp("2026-13-45T99:00:00Z")).toBeNull();
    expect(parseTimestamp(Number.NaN)).toBeNull();
    expect(parseTimestamp(null)).toBeNull();
  });
});

describe("formatDateTime / formatTime", () => {
  const instant = "2026-04-13T12:00:05.000000Z";

  it("renders UTC with the zone named, per locale", () => {
    expect(formatDateTime(instant, { locale: "en", timeZone: "UTC" })).toBe("Apr 13, 2026, 12:00:05 UTC");
    expect(formatDateTime(instant, { locale: "de", timeZone: "UTC" })).toBe("13. Apr. 2026, 12:00:05 UTC");
    expect(formatDateTime(instant, { locale: "pt-BR", timeZone: "UTC" })).toBe("13 de abr. de 2026, 12:00:05 UTC");
    expect(formatDateTime(instant, { locale: "fr", timeZone: "UTC" })).toBe("13 avr. 2026, 12:00:05 UTC");
  });

  it("shifts to the chosen local zone", () => {
    expect(formatTime(instant, { locale: "de", timeZone: "Europe/Berlin" })).toBe("14:00:05 MESZ");
    // The status-line clock: the same time of day without the zone name.
    expect(formatTime(instant, { locale: "de", timeZone: "Europe/Berlin" }, { zoneName: false })).toBe("14:00:05");
    expect(formatTime(instant, { locale: "en", timeZone: "America/New_York" })).toBe("08:00:05 EDT");
  });

  it("uses a 24-hour clock in every locale, English included", () => {
    const afternoon = "2026-04-13T16:05:09Z";
    expect(formatTime(afternoon, { locale: "en", timeZone: "UTC" })).toBe("16:05:09 UTC");
    expect(formatDateTime(afternoon, { locale: "en", timeZone: "UTC" })).toBe("Apr 13, 2026, 16:05:09 UTC");
    expect(formatTime(afternoon, { locale: "ja", timeZone: "UTC" })).toBe("16:05:09 UTC");
  });

  it("returns unparseable input verbatim instead of 'Invalid Date'", () => {
    expect(formatDateTime("not a date", { locale: "en", timeZone: "UTC" })).toBe("not a date");
  });
});

describe("formatDuration", () => {
  it("uses milliseconds under a second", () => {
    expect(formatDuration(0, "en")).toBe("0ms");
    expect(formatDuration(12.9, "en")).toBe("12ms");
  });

  it("shows the two largest units, rounding the last one down", () => {
    expect(formatDuration(3_723_999, "en")).toBe("1h 2m");
    expect(formatDuration(59_999, "en")).toBe("59s");
    expect(formatDuration(90_061_000, "en")).toBe("1d 1h");
    expect(formatDuration(3_600_000, "en")).toBe("1h 0m");
    expect(formatDuration(3_723_000, "en", { maxUnits: 3 })).toBe("1h 2m 3s");
  });

  it("follows the locale", () => {
    expect(formatDuration(3_723_000, "de")).toBe("1h, 2 Min.");
    expect(formatDuration(250, "de")).toBe("250 ms");
    expect(formatDuration(3_900_000, "pt-BR")).toBe("1 h 5 min");
    expect(formatDuration(200_000, "fr")).toBe("3min 20s");
  });

  it("keeps the sign of negative durations and refuses non-finite ones", () => {
    expect(formatDuration(-1_500, "en")).toBe("-1s");
    expect(formatDuration(Number.POSITIVE_INFINITY, "en")).toBe("–");
  });
});

describe("formatRelative", () => {
  const now = Date.parse("2026-12-01T12:00:00Z");
  it("names the largest whole unit, never older than it is", () => {
    expect(formatRelative("2026-12-01T11:57:01Z", now, "en")).toBe("2 min. ago");
    expect(formatRelative("2026-12-01T11:59:58Z", now, "en")).toBe("2 sec. ago");
    expect(formatRelative("2026-11-29T11:00:00Z", now, "en")).toBe("2 days ago");
    expect(formatRelative(now + 20_000, now, "en")).toBe("in 20 sec.");
    expect(formatRelative(now, now, "en")).toBe("now");
  });
  it("speaks the locale", () => {
    expect(formatRelative("2026-12-01T11:57:00Z", now, "de")).toBe("vor 3 Min.");
    expect(formatRelative("2026-12-01T11:57:00Z", now, "pt-BR")).toBe("há 3 min.");
    expect(formatRelative(now + 20_000, now, "fr")).toBe("dans 20\u00a0s"); // French puts a no-break space before the unit
  });
  it("returns an unreadable value as given", () => {
    expect(formatRelative("not a time", now, "en")).toBe("not a time");
  });
});
