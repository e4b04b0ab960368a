import { readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { createDwClient } from "./client";
import { fixture, fixtureFetch } from "./fixtures/fixture-fetch";
import {
  scheduleCommandAnswerSchema,
  scheduleDescriptionSchema,
  scheduleHistorySchema,
  scheduleListSchema,
} from "./schemas-schedules";

/** The schedule decoders against the real-shape answers in lib/dw/fixtures/schedule-*.json (schedules.md). */

const FIXTURES = readdirSync(fileURLToPath(new URL("./fixtures/", import.meta.url)))
  .filter((file) => file.startsWith("schedule-") && file.endsWith(".json") && !file.includes("error"))
  .map((file) => file.replace(/\.json$/, ""));

function schemaFor(name: string) {
  if (name === "schedule-list") return scheduleListSchema;
  if (name === "schedule-detail") return scheduleDescriptionSchema;
  if (name === "schedule-history") return scheduleHistorySchema;
  return scheduleCommandAnswerSchema;
}

describe("schedule decoders", () => {
  it("has the fixtures to check against", () => {
    expect(FIXTURES).toEqual(expect.arrayContaining(["schedule-list", "schedule-detail", "schedule-history"]));
  });

  it.each(FIXTURES)("%s decodes", (name) => {
    const parsed = schemaFor(name).safeParse(fixture(name));
    expect(parsed.error?.issues ?? []).toEqual([]);
  });

  it("keeps what the screens read from the detail", () => {
    const detail = scheduleDescriptionSchema.parse(fixture("schedule-detail"));
    expect(detail.spec?.cron_expressions).toEqual(["0 2 * * 1-5"]);
    expect(detail.spec?.timezone).toBe("Europe/Berlin");
    expect(detail.info?.recent_actions?.length).toBeGreaterThan(0);
  });

  it("refuses a list without its schedules", () => {
    expect(scheduleListSchema.safeParse({ next_page_token: null }).success).toBe(false);
  });
});

describe("schedule commands", () => {
  const client = (reply: Parameters<typeof fixtureFetch>[0]) => {
    const recorded = fixtureFetch(reply);
    return { dw: createDwClient({ baseUrl: "http://dw", fetch: recorded.fetch, namespace: "default" }), recorded };
  };

  it("pauses with the note in the body, the id as one segment", async () => {
    const { dw, recorded } = client({ json: fixture("schedule-paused") });
    const result = await dw.pauseSchedule("nightly/report", "maintenance");
    expect(result.kind).toBe("accepted");
    expect(recorded.requests[0]?.url).toBe("http://dw/api/schedules/nightly%2Freport/pause");
    expect(recorded.requests[0]?.body).toEqual({ note: "maintenance" });
  });

  it("backfills a range with an overlap policy and deletes with DELETE", async () => {
    const { dw, recorded } = client((request) =>
      request.method === "DELETE" ? { json: fixture("schedule-deleted") } : { json: fixture("schedule-backfill") },
    );
    const backfill = await dw.backfillSchedule("nightly", {
      startTime: "2026-01-01T00:00:00Z",
      endTime: "2026-01-02T00:00:00Z",
      overlapPolicy: "allow_all",
    });
    expect(backfill.kind === "accepted" && backfill.body.outcome).toBe("backfill_started");
    expect(recorded.requests[0]?.body).toEqual({
      start_time: "2026-01-01T00:00:00Z",
      end_time: "2026-01-02T00:00:00Z",
      overlap_policy: "allow_all",
    });
    const deleted = await dw.deleteSchedule("nightly");
    expect(recorded.requests[1]?.method).toBe("DELETE");
    expect(deleted.kind === "accepted" && deleted.body.outcome).toBe("deleted");
  });

  it("answers the controller's refusals with their reason, not an exception", async () => {
    const { dw } = client({ status: 404, json: fixture("schedule-error-404") });
    const result = await dw.triggerSchedule("gone", "skip");
    expect(result).toMatchObject({ kind: "rejected", httpStatus: 404, reason: "schedule_not_found" });
    const range = client({ status: 422, json: fixture("schedule-error-422-time-range") });
    const refused = await range.dw.backfillSchedule("x", { startTime: "b", endTime: "a" });
    expect(refused).toMatchObject({ kind: "rejected", reason: "invalid_time_range" });
  });

  it("throws for an answer that is not the controller's (auth)", async () => {
    const { dw } = client({ status: 401, json: { message: "Unauthenticated." } });
    await expect(dw.deleteSchedule("x")).rejects.toThrow();
  });
});
