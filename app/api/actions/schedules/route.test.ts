import type { NextRequest } from "next/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EmbeddedServer } from "@/server/http/test-support";
import { consoleRequest, SAME_ORIGIN, startActionServer } from "@/app/api/actions/_shared/route-test-support";

/**
 * The schedule action handler against the real embedded server (SQLite in a temp dir, HTTP on
 * 127.0.0.1): guard, request validation, each command, and its effect read back from the server.
 */

const DW_HEADERS = { authorization: "Bearer adm-token", "x-durable-workflow-control-plane-version": "2" };
let server: EmbeddedServer;
let dwUrl: string;
let POST: (request: NextRequest) => Promise<Response>;

beforeAll(async () => {
  server = await startActionServer({ DW_WORKER_TOKEN: "wrk-token" });
  dwUrl = server.url;
  ({ POST } = await import("@/app/api/actions/schedules/route"));
});

afterAll(async () => {
  await server.close();
});

function actionRequest(body: unknown, headers: Record<string, string> = {}): NextRequest {
  return consoleRequest("/api/actions/schedules", body, { ...SAME_ORIGIN, ...headers });
}

/** The parts of the server's answers these tests read. */
interface DwJson {
  state?: { status?: string; note?: string | null };
  events?: { event_type: string }[];
  workflow_type?: string;
}

async function dw(method: string, path: string, body?: unknown): Promise<{ status: number; json: DwJson }> {
  const response = await fetch(`${dwUrl}/api${path}`, {
    method,
    headers: { ...DW_HEADERS, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, json: (await response.json()) as DwJson };
}

async function create(scheduleId: string): Promise<void> {
  const created = await dw("POST", "/schedules", {
    schedule_id: scheduleId,
    spec: { cron_expressions: ["0 3 1 1 *"], timezone: "UTC" },
    action: { workflow_type: "ScheduledReport", task_queue: "reports" },
    overlap_policy: "allow_all",
  });
  expect(created.status).toBe(201);
}

const types = async (scheduleId: string) =>
  ((await dw("GET", `/schedules/${scheduleId}/history`)).json.events ?? []).map((e) => e.event_type);

describe("POST /api/actions/schedules", () => {
  it("pauses with the note and resumes, each read back from the schedule and its audit", async () => {
    await create("sched-pause");
    const paused = await POST(actionRequest({ action: "pause", scheduleId: "sched-pause", note: "db maintenance" }));
    expect(paused.status).toBe(200);
    expect(await paused.json()).toMatchObject({ result: "accepted", action: "pause", outcome: "paused" });
    const detail = (await dw("GET", "/schedules/sched-pause")).json;
    expect(detail.state).toMatchObject({ status: "paused", note: "db maintenance" });

    const resumed = await POST(actionRequest({ action: "resume", scheduleId: "sched-pause", note: "done" }));
    expect(await resumed.json()).toMatchObject({ result: "accepted", outcome: "resumed" });
    expect((await dw("GET", "/schedules/sched-pause")).json.state).toMatchObject({ status: "active", note: "done" });
    expect(await types("sched-pause")).toEqual(["ScheduleCreated", "SchedulePaused", "ScheduleResumed"]);
  });

  it("triggers now and answers the started run, which the server lists", async () => {
    await create("sched-trigger");
    const response = await POST(
      actionRequest({ action: "trigger", scheduleId: "sched-trigger", overlapPolicy: "allow_all" }),
    );
    const answer = await response.json();
    expect(answer).toMatchObject({ result: "accepted", outcome: "triggered" });
    expect(answer.workflowId).toEqual(expect.any(String));
    expect((await dw("GET", `/workflows/${answer.workflowId}`)).json.workflow_type).toBe("ScheduledReport");
    expect(await types("sched-trigger")).toContain("ScheduleTriggered");
  });

  it("backfills [start, end) and counts the fires started", async () => {
    await create("sched-backfill");
    const response = await POST(
      actionRequest({
        action: "backfill",
        scheduleId: "sched-backfill",
        startTime: "2023-01-01T00:00:00Z",
        endTime: "2026-01-01T03:00:00Z",
        overlapPolicy: "allow_all",
      }),
    );
    // 03:00 on 1 January of 2023, 2024 and 2025; 2026's is the end, excluded.
    expect(await response.json()).toMatchObject({ result: "accepted", firesAttempted: 3, firesStarted: 3 });
    expect((await types("sched-backfill")).filter((t) => t === "ScheduleTriggered")).toHaveLength(3);
  });

  it("deletes only with the id typed again, then the schedule is gone", async () => {
    await create("sched-delete");
    const wrong = await POST(actionRequest({ action: "delete", scheduleId: "sched-delete", confirmId: "sched" }));
    expect(wrong.status).toBe(400);
    expect((await dw("GET", "/schedules/sched-delete")).status).toBe(200);
    const deleted = await POST(
      actionRequest({ action: "delete", scheduleId: "sched-delete", confirmId: "sched-delete" }),
    );
    expect(await deleted.json()).toMatchObject({ result: "accepted", outcome: "deleted" });
    expect((await dw("GET", "/schedules/sched-delete")).status).toBe(404);
    expect(await types("sched-delete")).toContain("ScheduleDeleted");
  });

  it("relays the server's refusal with its reason", async () => {
    const response = await POST(actionRequest({ action: "trigger", scheduleId: "no-such-schedule" }));
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ result: "rejected", reason: "schedule_not_found" });
  });

  it("refuses a cross-origin request and a note-less pause without calling the server", async () => {
    await create("sched-guard");
    const cross = await POST(
      actionRequest({ action: "pause", scheduleId: "sched-guard", note: "x" }, { origin: "http://evil.test" }),
    );
    expect(cross.status).toBe(403);
    const noNote = await POST(actionRequest({ action: "pause", scheduleId: "sched-guard", note: "" }));
    expect(noNote.status).toBe(400);
    expect((await dw("GET", "/schedules/sched-guard")).json.state?.status).toBe("active");
  });
});
