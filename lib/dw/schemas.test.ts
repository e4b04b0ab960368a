import { describe, expect, it } from "vitest";
import { createDwClient } from "./client";
import { COMMAND_OUTCOMES, HISTORY_EVENT_TYPES, isKnown, LIVENESS_STATES, RUN_STATUSES } from "./enums";
import { fixture, fixtureFetch } from "./fixtures/fixture-fetch";
import { timestamp, timestampToEpochMs } from "./schema-kit";
import { historyExportSchema } from "./schemas-export";
import { operatorMetricsResponseSchema } from "./schemas-system";
import { historyPageSchema, runDescriptionSchema, workflowDebugSchema, workflowListSchema } from "./schemas-workflows";

type Json = Record<string, unknown>;
const clone = (name: string) => structuredClone(fixture(name)) as Json;

describe("open schemas: unknown fields survive parsing", () => {
  it("top-level and nested unknown keys pass through on describe", () => {
    const body = clone("workflow-describe");
    body.future_field = { nested: [1, 2] };
    (body.actions as Json).can_reset = true;
    (body.control_plane as Json).migration_projection = "v3";
    const parsed = runDescriptionSchema.parse(body);
    expect(parsed.future_field).toEqual({ nested: [1, 2] });
    expect(parsed.actions.can_reset).toBe(true);
    expect(parsed.control_plane.migration_projection).toBe("v3");
  });

  it("unknown keys deep inside the export bundle pass through", () => {
    const body = clone("history-export");
    const activity = (body.activities as Json[])[0]!;
    activity.execution_mode = "local";
    (activity.attempts as Json[])[0]!.can_continue = false;
    (body.failures as Json[])[0]!.structural_limit_kind = null;
    const parsed = historyExportSchema.parse(body);
    expect(parsed.activities?.[0]?.execution_mode).toBe("local");
    expect(parsed.activities?.[0]?.attempts[0]?.can_continue).toBe(false);
    expect(parsed.failures?.[0]).toHaveProperty("structural_limit_kind", null);
  });

  it("a newer operator_metrics group is kept", () => {
    const body = clone("operator-metrics");
    (body.operator_metrics as Json).service_calls = { open: 3 };
    expect(operatorMetricsResponseSchema.parse(body).operator_metrics.service_calls).toEqual({ open: 3 });
  });

  it("parses the metrics of an older engine without the † keys", () => {
    const body = clone("operator-metrics");
    const metrics = body.operator_metrics as Json;
    for (const key of ["schedules", "matching_role", "sticky_execution"]) delete metrics[key];
    delete (metrics.runs as Json).waiting;
    delete (metrics.backlog as Json).tasks_added_last_minute;
    expect(() => operatorMetricsResponseSchema.parse(body)).not.toThrow();
  });
});

describe("open enums: unknown members survive verbatim", () => {
  it("run status, liveness, event types and outcomes the client has never seen", () => {
    const list = clone("workflow-list");
    (list.workflows as Json[])[0]!.status = "paused";
    (list.workflows as Json[])[0]!.status_bucket = "suspended";
    expect(workflowListSchema.parse(list).workflows[0]).toMatchObject({ status: "paused", status_bucket: "suspended" });

    const debug = clone("workflow-debug");
    (debug.execution as Json).liveness_state = "service_call_waiting";
    debug.diagnostic_status = "quarantined";
    expect(workflowDebugSchema.parse(debug)).toMatchObject({
      diagnostic_status: "quarantined",
      execution: { liveness_state: "service_call_waiting" },
    });

    const history = clone("history-page");
    (history.events as Json[])[1]!.event_type = "ServiceCallStarted";
    expect(historyPageSchema.parse(history).events[1]!.event_type).toBe("ServiceCallStarted");
  });

  it("the known members are exported for UI branching", () => {
    expect(RUN_STATUSES).toContain("terminated");
    expect(LIVENESS_STATES).toContain("repair_needed");
    expect(HISTORY_EVENT_TYPES).toHaveLength(73);
    expect(isKnown(COMMAND_OUTCOMES, "repair_dispatched")).toBe(true);
    expect(isKnown(COMMAND_OUTCOMES, "rejected_by_moon_phase")).toBe(false);
  });

  it("a non-string where an enum belongs is still rejected", () => {
    const list = clone("workflow-list");
    (list.workflows as Json[])[0]!.status = 3;
    expect(workflowListSchema.safeParse(list).success).toBe(false);
  });
});

describe("PHP empty arrays where maps are meant", () => {
  it("[] and {} both parse, and [] normalises to {}", () => {
    const asArray = clone("workflow-describe");
    const asObject = clone("workflow-describe");
    asObject.memo = { customer: "42" };
    asObject.search_attributes = {};
    expect(runDescriptionSchema.parse(asArray)).toMatchObject({ memo: {}, search_attributes: {} });
    expect(runDescriptionSchema.parse(asObject).memo).toEqual({ customer: "42" });
  });

  it("history event payload [] becomes {}", () => {
    const history = clone("history-page");
    (history.events as Json[])[0]!.payload = [];
    expect(historyPageSchema.parse(history).events[0]!.payload).toEqual({});
  });

  it("a non-empty list where a map belongs is still rejected", () => {
    const body = clone("workflow-describe");
    body.search_attributes = ["not", "a", "map"];
    expect(runDescriptionSchema.safeParse(body).success).toBe(false);
  });

  it("a list-shaped memo is accepted: the real start endpoint stores any JSON", () => {
    const body = clone("workflow-describe");
    body.memo = ["first", { second: 2 }];
    expect(runDescriptionSchema.parse(body).memo).toEqual(["first", { second: 2 }]);
  });
});

describe("both timestamp forms", () => {
  it.each([
    ["2026-04-13T12:00:00.000000Z", Date.UTC(2026, 3, 13, 12, 0, 0)],
    ["2026-04-13T12:00:00+00:00", Date.UTC(2026, 3, 13, 12, 0, 0)],
    ["2026-04-13T12:00:00.123456Z", Date.UTC(2026, 3, 13, 12, 0, 0, 123)],
    ["2026-04-13T14:00:00+02:00", Date.UTC(2026, 3, 13, 12, 0, 0)],
  ])("%s", (value, epoch) => {
    expect(timestamp.safeParse(value).success).toBe(true);
    expect(timestampToEpochMs(value)).toBe(epoch);
  });

  it.each(["2026-04-13 12:00:00", "yesterday", ""])("rejects %j", (value) => {
    expect(timestamp.safeParse(value).success).toBe(false);
    expect(timestampToEpochMs(value)).toBeNull();
  });

  it("describe carries both forms side by side", async () => {
    const served = fixtureFetch({ json: fixture("workflow-describe") });
    const described = await createDwClient({ baseUrl: "http://dw.test", fetch: served.fetch }).describeWorkflow(
      "wf-read-describe",
    );
    expect(timestampToEpochMs(described.last_progress_at)! - timestampToEpochMs(described.started_at)!).toBe(1000);
  });
});
