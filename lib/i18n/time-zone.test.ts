import { describe, expect, it } from "vitest";
import { resolveTimeZone } from "@/lib/i18n/time-zone";

const jar = (values: Record<string, string>) => ({
  get: (name: string) => {
    const value = values[name];
    return value === undefined ? undefined : { value };
  },
});

describe("resolveTimeZone", () => {
  it("is UTC unless local time was chosen", () => {
    expect(resolveTimeZone(jar({}))).toBe("UTC");
    expect(resolveTimeZone(jar({ "bw-tz": "Europe/Berlin" }))).toBe("UTC");
    expect(resolveTimeZone(jar({ "bw-time": "utc", "bw-tz": "Europe/Berlin" }))).toBe("UTC");
  });

  it("uses the browser's reported zone in local mode, if it is a real zone", () => {
    expect(resolveTimeZone(jar({ "bw-time": "local", "bw-tz": "Europe/Berlin" }))).toBe("Europe/Berlin");
    expect(resolveTimeZone(jar({ "bw-time": "local", "bw-tz": "Mars/Olympus" }))).toBe("UTC");
    expect(resolveTimeZone(jar({ "bw-time": "local" }))).toBe("UTC");
  });

  it("uses the zone picked by name in zone mode, never the browser's, and UTC for a made-up one", () => {
    expect(resolveTimeZone(jar({ "bw-time": "zone", "bw-tz-pick": "Asia/Tokyo", "bw-tz": "Europe/Lisbon" }))).toBe(
      "Asia/Tokyo",
    );
    expect(resolveTimeZone(jar({ "bw-time": "zone", "bw-tz": "Europe/Lisbon" }))).toBe("UTC");
    expect(resolveTimeZone(jar({ "bw-time": "zone", "bw-tz-pick": "<script>" }))).toBe("UTC");
    expect(resolveTimeZone(jar({ "bw-time": "local", "bw-tz-pick": "Asia/Tokyo" }))).toBe("UTC");
  });
});
