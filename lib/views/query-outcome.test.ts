import { describe, expect, it } from "vitest";
import { errorFromResponse } from "@/lib/dw/errors";
import failed from "@/lib/dw/fixtures/query-failed.json";
import notFound from "@/lib/dw/fixtures/query-not-found.json";
import unknownName from "@/lib/dw/fixtures/query-unknown-name.json";
import workerTimeout from "@/lib/dw/fixtures/query-worker-timeout.json";
import {
  declaredQueryNames,
  parseQueryArguments,
  queryFailure,
  queryNameChoices,
  rememberQueryName,
  startedWorkflowType,
} from "./query-outcome";

describe("query names", () => {
  const started = (payload: unknown) => [
    { event_type: "StartAccepted", payload: {} },
    { event_type: "WorkflowStarted", payload },
  ];

  it("reads the names WorkflowStarted declares, and none when the worker registered no contract", () => {
    expect(declaredQueryNames(started({ declared_queries: ["status", "", 3, "progress"] }))).toEqual([
      "status",
      "progress",
    ]);
    expect(declaredQueryNames(started({ workflow_type: "OrderWorkflow" }))).toBeNull();
    expect(declaredQueryNames(started([]))).toBeNull();
    expect(declaredQueryNames([])).toBeNull();
    expect(startedWorkflowType(started({ workflow_type: "OrderWorkflow" }))).toBe("OrderWorkflow");
    expect(startedWorkflowType(started({}))).toBeNull();
  });

  it("offers the declared names first, then names sent before, and says where they came from", () => {
    expect(queryNameChoices(["status", "progress"], ["debug", "status"])).toEqual({
      names: ["status", "progress", "debug"],
      source: "declared",
    });
    expect(queryNameChoices(null, ["status"])).toEqual({ names: ["status"], source: "seen" });
    expect(queryNameChoices([], [])).toEqual({ names: [], source: "none" });
  });

  it("remembers a name sent, newest first, without duplicates, up to the limit", () => {
    expect(rememberQueryName(["a", "b", "c"], "b")).toEqual(["b", "a", "c"]);
    expect(rememberQueryName(["a", "b"], "c", 2)).toEqual(["c", "a"]);
  });
});

describe("query arguments", () => {
  it("sends no input for an empty box or an empty list, and a JSON list as the handler's arguments", () => {
    expect(parseQueryArguments("  ")).toEqual({ ok: true, input: undefined });
    expect(parseQueryArguments("[]")).toEqual({ ok: true, input: undefined });
    expect(parseQueryArguments('[1, "eu", {"deep": true}]')).toEqual({ ok: true, input: [1, "eu", { deep: true }] });
  });

  it("refuses text that is not JSON, and JSON that is not a list, before anything is sent", () => {
    expect(parseQueryArguments("[1,")).toMatchObject({ ok: false, problem: "not_json" });
    expect(parseQueryArguments('{"index": 1}')).toEqual({ ok: false, problem: "not_a_list" });
    expect(parseQueryArguments("5")).toEqual({ ok: false, problem: "not_a_list" });
  });
});

describe("query refusals in words", () => {
  // The typed errors the browser's client makes of the recorded answers (lib/dw/fixtures/query-*.json).
  const refusal = (status: number, body: unknown) => queryFailure(errorFromResponse(status, body));

  it("names each refusal the server gives a query", () => {
    expect(refusal(504, workerTimeout)).toMatchObject({ kind: "no_worker_answered", httpStatus: 504 });
    expect(refusal(409, failed)).toEqual({
      kind: "handler_failed",
      detail: "charge ledger is not loaded",
      httpStatus: 409,
      serverReason: "query_rejected",
    });
    expect(refusal(404, unknownName)).toMatchObject({ kind: "unknown_query", detail: "unknown query 'nope'" });
    expect(refusal(404, notFound)).toMatchObject({ kind: "not_declared" });
    expect(refusal(409, { reason: "workflow_definition_unavailable", message: "m" })).toMatchObject({
      kind: "definition_unavailable",
    });
    expect(refusal(409, { reason: "historical_run_command_rejected" })).toMatchObject({ kind: "not_current_run" });
    expect(refusal(429, { reason: "query_task_queue_full" })).toMatchObject({ kind: "queue_full" });
    expect(refusal(404, { reason: "instance_not_found" })).toMatchObject({ kind: "workflow_not_found" });
  });

  it("names the console's own refusals: no server, no credential, no permission", () => {
    expect(refusal(502, { reason: "server_unavailable", message: "not reachable" })).toMatchObject({
      kind: "server_down",
      detail: null,
    });
    expect(refusal(504, { reason: "server_timeout" })).toMatchObject({ kind: "server_down" });
    expect(refusal(401, { message: "Unauthenticated." })).toMatchObject({ kind: "unauthorized" });
    expect(refusal(403, { reason: "forbidden", message: "operator role required" })).toMatchObject({
      kind: "forbidden",
    });
    expect(queryFailure({ reason: "server_unavailable", httpStatus: null })).toMatchObject({ kind: "server_down" });
    expect(refusal(418, {})).toMatchObject({ kind: "other" });
  });
});
