import { describe, expect, it } from "vitest";
import { zoneChoices } from "@/lib/preferences/time-zones";

describe("zoneChoices", () => {
  it("puts UTC first, sorts the rest and keeps the zone in use even if the list lacks it", () => {
    expect(zoneChoices(["Europe/Lisbon", "Asia/Tokyo", "UTC"], "Asia/Calcutta")).toEqual([
      "UTC",
      "Asia/Calcutta",
      "Asia/Tokyo",
      "Europe/Lisbon",
    ]);
  });

  it("offers UTC and the zone in use when the browser has no list, without duplicates", () => {
    expect(zoneChoices([], "UTC")).toEqual(["UTC"]);
    expect(zoneChoices(["Asia/Tokyo"], "Asia/Tokyo")).toEqual(["UTC", "Asia/Tokyo"]);
  });

  it("offers every zone this runtime knows", () => {
    const all = Intl.supportedValuesOf("timeZone");
    const choices = zoneChoices(all, "UTC");
    expect(choices.length).toBeGreaterThan(300);
    expect(choices).toContain("Asia/Tokyo");
    expect(choices).toContain("Europe/Lisbon");
  });
});
