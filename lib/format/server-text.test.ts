import { describe, expect, it } from "vitest";
import { formatServerText, serverTextParts } from "@/lib/format/server-text";

describe("server-written text", () => {
  const text = "Workflow deadline expired at 2026-12-01T20:01:37.621000Z; retry at 2026-12-01T21:00:00+01:00.";

  it("shows each instant in the chosen zone and keeps the rest verbatim", () => {
    expect(formatServerText(text, { locale: "en", timeZone: "UTC" })).toBe(
      "Workflow deadline expired at Dec 1, 2026, 20:01:37 UTC; retry at Dec 1, 2026, 20:00:00 UTC.",
    );
    expect(formatServerText(text, { locale: "de", timeZone: "Europe/Berlin" })).toBe(
      "Workflow deadline expired at 1. Dez. 2026, 21:01:37 MEZ; retry at 1. Dez. 2026, 21:00:00 MEZ.",
    );
  });

  it("leaves zoneless and impossible dates alone, and text without instants untouched", () => {
    expect(formatServerText("at 2026-12-01T20:01:37 local", { locale: "en", timeZone: "UTC" })).toBe(
      "at 2026-12-01T20:01:37 local",
    );
    expect(formatServerText("at 2026-13-45T99:99:00Z", { locale: "en", timeZone: "UTC" })).toBe(
      "at 2026-13-45T99:99:00Z",
    );
    const hostile = "<script>alert(1)</script>";
    expect(serverTextParts(hostile)).toEqual([{ kind: "text", text: hostile }]);
  });
});
