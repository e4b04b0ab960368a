import { describe, expect, it } from "vitest";
import { orderIncidents } from "./incident-view";
import type { Incident } from "./schemas";

const row = (id: string, status: string, createdAt: string | null) => ({
  incident: { id, type: "FAILED_JOB", status, createdAt } as Incident,
});

describe("orderIncidents", () => {
  it("puts open incidents first, each half newest first, undated last", () => {
    const ordered = orderIncidents([
      row("resolved-old", "RESOLVED", "2026-12-07T10:00:00.000Z"),
      row("open-old", "OPEN", "2026-12-07T10:00:01.000Z"),
      row("resolved-new", "RESOLVED", "2026-12-07T10:00:05.000Z"),
      row("open-undated", "OPEN", null),
      row("open-new", "OPEN", "2026-12-07T10:00:09.000Z"),
    ]);
    expect(ordered.map((r) => r.incident.id)).toEqual([
      "open-new",
      "open-old",
      "open-undated",
      "resolved-new",
      "resolved-old",
    ]);
  });
});
