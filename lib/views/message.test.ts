import { describe, expect, it } from "vitest";
import { HISTORY_EVENT_TYPES } from "@/lib/dw/enums";
import { formatTemplate, message } from "./message";
import { VIEW_MESSAGES_EN, messageText, nestMessages } from "./message-catalog";
import { eventSummary } from "./timeline";
import { toViewEvent } from "./events";

describe("view messages", () => {
  it("nest into the shape next-intl reads without collisions", () => {
    const nested = nestMessages(VIEW_MESSAGES_EN);
    expect(nested).toMatchObject({ views: { forecast: { due: VIEW_MESSAGES_EN["views.forecast.due"] } } });
    expect(() => nestMessages({ "a.b": "x", "a.b.c": "y" })).toThrow();
    expect(() => nestMessages({ "a.b.c": "y", "a.b": "x" })).toThrow();
  });

  it("substitute values and leave unknown placeholders visible", () => {
    expect(formatTemplate("{a} and {b}", { a: 1 })).toBe("1 and {b}");
    expect(message("views.timeline.ActivityStarted", { activity: "ChargeCard" })).toEqual({
      id: "views.timeline.ActivityStarted",
      values: { activity: "ChargeCard" },
    });
    expect(messageText(message("views.timeline.ActivityStarted", { activity: "ChargeCard" }))).toBe(
      "Started ChargeCard.",
    );
  });

  it("cover every summary the timeline can emit", () => {
    const variants = [
      {},
      { outcome: "repair_dispatched" },
      { outcome: "archive_not_needed" },
      { timeout_kind: "run_timeout" },
      { failure_id: "f" },
      { timeout_seconds: 5 },
    ];
    for (const type of HISTORY_EVENT_TYPES) {
      for (const payload of variants) {
        const summary = eventSummary(toViewEvent({ sequence: 1, type, payload }));
        expect(VIEW_MESSAGES_EN).toHaveProperty([summary.id]);
        expect(messageText(summary)).not.toContain("undefined");
      }
    }
  });
});
