import { describe, expect, it } from "vitest";
import { createDwClient, errorFromResponse } from "./client";
import type { DwError, DwErrorReason } from "./errors";
import {
  DwAbortedError,
  DwBadRequestError,
  DwConflictError,
  DwForbiddenError,
  DwInstanceNotFoundError,
  DwMalformedResponseError,
  DwNamespaceNotFoundError,
  DwNotFoundError,
  DwPayloadTooLargeError,
  DwRouteNotFoundError,
  DwRunNotFoundError,
  DwServerUnavailableError,
  DwUnauthorizedError,
  DwValidationError,
  DwVersionMismatchError,
  isDwError,
} from "./errors";
import { fixture, fixtureFetch, hangingFetch, type Reply } from "./fixtures/fixture-fetch";

const BASE = "http://dw.test";

async function failure(
  reply: Reply,
  call: (c: ReturnType<typeof createDwClient>) => Promise<unknown>,
): Promise<DwError> {
  const served = fixtureFetch(reply);
  const client = createDwClient({ baseUrl: BASE, token: "t", fetch: served.fetch });
  try {
    await call(client);
  } catch (error) {
    expect(isDwError(error)).toBe(true);
    return error as DwError;
  }
  throw new Error("expected the call to fail");
}

describe("every error reason maps to its typed error", () => {
  it("401 → unauthorized", async () => {
    const error = await failure({ status: 401, json: fixture("error-401") }, (c) => c.listWorkflows());
    expect(error).toBeInstanceOf(DwUnauthorizedError);
    expect(error).toMatchObject({
      reason: "unauthorized",
      httpStatus: 401,
      serverReason: "unauthorized",
      message: "Invalid or missing authentication token.",
    });
  });

  it("403 → forbidden with the caller's role and the allowed roles", async () => {
    const error = await failure({ status: 403, json: fixture("error-403") }, (c) => c.operatorMetrics());
    expect(error).toBeInstanceOf(DwForbiddenError);
    expect(error).toMatchObject({ reason: "forbidden", role: "operator", allowedRoles: ["admin"] });
  });

  it("404 namespace_not_found → namespace error with remediation", async () => {
    const error = await failure({ status: 404, json: fixture("error-404-namespace") }, (c) => c.listWorkflows());
    expect(error).toBeInstanceOf(DwNamespaceNotFoundError);
    expect(error).toMatchObject({ reason: "namespace_not_found", namespace: "billing" });
    expect((error as DwNamespaceNotFoundError).remediation).toContain("POST /api/namespaces");
  });

  it("404 instance_not_found → instance error", async () => {
    const error = await failure({ status: 404, json: fixture("error-404-instance") }, (c) =>
      c.describeWorkflow("order-404"),
    );
    expect(error).toBeInstanceOf(DwInstanceNotFoundError);
    expect(error).toMatchObject({ reason: "instance_not_found", workflowId: "order-404" });
  });

  it("404 run_not_found → run error with both ids", async () => {
    const error = await failure({ status: 404, json: fixture("error-404-run") }, (c) =>
      c.describeRun("order-42", "01jrvrun00000000000000nope"),
    );
    expect(error).toBeInstanceOf(DwRunNotFoundError);
    expect(error).toMatchObject({
      reason: "run_not_found",
      workflowId: "order-42",
      runId: "01jrvrun00000000000000nope",
    });
  });

  it("404 of another resource → not_found, keeping the server reason", async () => {
    const error = await failure(
      { status: 404, json: { message: "Worker not found.", reason: "worker_not_found" } },
      (c) => c.getWorker("w"),
    );
    expect(error).toBeInstanceOf(DwNotFoundError);
    expect(error).toMatchObject({ reason: "not_found", serverReason: "worker_not_found" });
  });

  it.each([
    { status: 404, json: { message: "Not found.", reason: "not_found" } },
    { status: 404, text: "<html>Not Found</html>" },
    { status: 405, json: { message: "Method not allowed.", reason: "method_not_allowed" } },
  ])("unknown route ($status) → route_not_found, so newer routes can be feature-detected", async (reply) => {
    const error = await failure(reply, (c) => c.systemMetrics());
    expect(error).toBeInstanceOf(DwRouteNotFoundError);
    expect(error.reason).toBe("route_not_found");
  });

  it("422 validation_failed → validation error with field messages", async () => {
    const error = await failure({ status: 422, json: fixture("error-422") }, (c) => c.listWorkflows());
    expect(error).toBeInstanceOf(DwValidationError);
    expect(error).toMatchObject({
      reason: "validation_failed",
      errors: { status: ["The selected status is invalid."] },
    });
  });

  it("422 with only validation_errors still carries the field messages", async () => {
    const error = await failure(
      {
        status: 422,
        json: { message: "bad", reason: "validation_failed", validation_errors: { page_size: ["too big"] } },
      },
      (c) => c.listWorkflows(),
    );
    expect((error as DwValidationError).errors).toEqual({ page_size: ["too big"] });
  });

  it.each(["missing_control_plane_version", "unsupported_control_plane_version"])(
    "400 %s → version mismatch",
    async (reason) => {
      const body = {
        ...(fixture("error-400-version") as Record<string, unknown>),
        reason,
        requested_version: reason.startsWith("un") ? "1" : null,
      };
      const error = await failure({ status: 400, json: body }, (c) => c.listWorkflows());
      expect(error).toBeInstanceOf(DwVersionMismatchError);
      expect(error).toMatchObject({
        reason: "version_mismatch",
        supportedVersion: "2",
        requestedVersion: reason.startsWith("un") ? "1" : null,
      });
    },
  );

  it("400 malformed_json → bad request", async () => {
    const error = await failure(
      { status: 400, json: { message: "Malformed JSON.", reason: "malformed_json", json_error: "Syntax error" } },
      (c) => c.runRepairPass(),
    );
    expect(error).toBeInstanceOf(DwBadRequestError);
    expect(error).toMatchObject({ reason: "bad_request", serverReason: "malformed_json" });
  });

  it("413 → payload too large with the limit", async () => {
    const error = await failure({ status: 413, json: fixture("error-413") }, (c) =>
      c.signalWorkflow("order-42", "big", { input: ["x"] }),
    );
    expect(error).toBeInstanceOf(DwPayloadTooLargeError);
    expect(error).toMatchObject({ reason: "payload_too_large", limit: 2097152 });
  });

  it("409 without a command body (historical run) → conflict error, not a rejection result", async () => {
    const error = await failure({ status: 409, json: fixture("error-409-historical") }, (c) =>
      c.cancelWorkflow("order-42", { runId: "01jrv0k8d3m6y0x7q9c2n4b5za" }),
    );
    expect(error).toBeInstanceOf(DwConflictError);
    expect(error).toMatchObject({ reason: "conflict", serverReason: "historical_run_command_rejected" });
  });

  it.each([500, 502, 503])("%i → server unavailable (http_5xx)", async (status) => {
    const error = await failure({ status, json: fixture("error-500") }, (c) => c.listWorkflows());
    expect(error).toBeInstanceOf(DwServerUnavailableError);
    expect(error).toMatchObject({ reason: "server_unavailable", unavailableCause: "http_5xx", httpStatus: status });
  });

  it("a 502 HTML page from a proxy → server unavailable, not a parse failure", async () => {
    const error = await failure({ status: 502, text: "<html><body>Bad Gateway</body></html>" }, (c) =>
      c.listWorkflows(),
    );
    expect(error).toMatchObject({ reason: "server_unavailable", unavailableCause: "http_5xx" });
  });

  it("429 → server unavailable (throttled)", async () => {
    const error = await failure({ status: 429, json: { message: "full", reason: "query_task_queue_full" } }, (c) =>
      c.listWorkflows(),
    );
    expect(error).toMatchObject({ reason: "server_unavailable", unavailableCause: "throttled" });
  });

  it("network failure → server unavailable (network)", async () => {
    const client = createDwClient({
      baseUrl: BASE,
      fetch: () => Promise.reject(new TypeError("fetch failed: ECONNREFUSED")),
    });
    const error = await client.health().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DwServerUnavailableError);
    expect(error).toMatchObject({ reason: "server_unavailable", unavailableCause: "network" });
    expect((error as Error).message).toContain("ECONNREFUSED");
  });

  it("timeout → server unavailable (timeout)", async () => {
    const client = createDwClient({ baseUrl: BASE, timeoutMs: 5, fetch: hangingFetch() });
    const error = await client.listWorkflows().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DwServerUnavailableError);
    expect(error).toMatchObject({ unavailableCause: "timeout" });
  });

  it("the caller's AbortSignal → aborted (a long-poll being stopped is not an outage)", async () => {
    const client = createDwClient({ baseUrl: BASE, fetch: hangingFetch() });
    const controller = new AbortController();
    const pending = client.getHistory("order-42", "run-1", { waitNewEvent: true }, { signal: controller.signal });
    controller.abort();
    await expect(pending).rejects.toBeInstanceOf(DwAbortedError);
  });

  it("an already-aborted signal fails fast without calling fetch", async () => {
    const served = fixtureFetch({ json: fixture("health") });
    const client = createDwClient({ baseUrl: BASE, fetch: served.fetch });
    await expect(client.health({ signal: AbortSignal.abort() })).rejects.toMatchObject({ reason: "aborted" });
    expect(served.requests).toHaveLength(0);
  });

  it("non-JSON success → malformed response at $", async () => {
    const error = await failure({ status: 200, text: "<!doctype html><p>Laravel</p>" }, (c) => c.listWorkflows());
    expect(error).toBeInstanceOf(DwMalformedResponseError);
    expect(error).toMatchObject({ reason: "malformed_response", issuePath: "$" });
  });

  it("empty success body → malformed response", async () => {
    const error = await failure({ status: 200, text: "" }, (c) => c.clusterInfo());
    expect(error).toMatchObject({ reason: "malformed_response", issuePath: "$" });
  });

  it("schema mismatch → malformed response naming the first offending path", async () => {
    const list = structuredClone(fixture("workflow-list")) as { workflows: Array<Record<string, unknown>> };
    list.workflows[0]!.is_terminal = "no";
    const error = await failure({ status: 200, json: list }, (c) => c.listWorkflows());
    expect(error).toBeInstanceOf(DwMalformedResponseError);
    expect(error).toMatchObject({ issuePath: "$.workflows[0].is_terminal" });
    expect(error.message).toContain("$.workflows[0].is_terminal");
  });

  it("a bad timestamp is a schema mismatch too", async () => {
    const history = structuredClone(fixture("history-page")) as { events: Array<Record<string, unknown>> };
    history.events[1]!.timestamp = "yesterday";
    const error = await failure({ status: 200, json: history }, (c) => c.getHistory("order-42", "r"));
    expect(error).toMatchObject({ reason: "malformed_response", issuePath: "$.events[1].timestamp" });
  });
});

describe("409 command rejection is a result, not a throw", () => {
  it("carries the full command body", async () => {
    const served = fixtureFetch({ status: 409, json: fixture("command-archive-rejected") });
    const client = createDwClient({ baseUrl: BASE, fetch: served.fetch });
    const result = await client.archiveWorkflow("order-42");
    expect(result.kind).toBe("rejected");
    expect(result.httpStatus).toBe(409);
    expect(result.body).toMatchObject({
      outcome: "rejected_run_not_closed",
      rejection_reason: "run_not_closed",
      command_status: "rejected",
      command_id: "01jrvcmd0000000000000000ar",
      control_plane: { operation: "archive" },
    });
  });

  it("a 404 unknown-signal rejection with a command body is a result too", async () => {
    const body = {
      ...(fixture("command-signal") as Record<string, unknown>),
      outcome: "rejected_unknown_signal",
      command_status: "rejected",
      rejection_reason: "unknown_signal",
    };
    const served = fixtureFetch({ status: 404, json: body });
    const client = createDwClient({ baseUrl: BASE, fetch: served.fetch });
    const result = await client.signalWorkflow("order-42", "nope");
    expect(result).toMatchObject({ kind: "rejected", httpStatus: 404, body: { outcome: "rejected_unknown_signal" } });
  });

  it("a start duplicate (409 rejected_duplicate) is a rejection result", async () => {
    const body = { ...(fixture("start-workflow") as Record<string, unknown>), outcome: "rejected_duplicate" };
    const served = fixtureFetch({ status: 409, json: body });
    const client = createDwClient({ baseUrl: BASE, fetch: served.fetch });
    const result = await client.startWorkflow({ workflow_type: "orders.process", workflow_id: "order-43" });
    expect(result).toMatchObject({ kind: "rejected", body: { outcome: "rejected_duplicate" } });
  });

  it("a command 404 instance_not_found is still an error", async () => {
    const served = fixtureFetch({ status: 404, json: fixture("error-404-instance") });
    const client = createDwClient({ baseUrl: BASE, fetch: served.fetch });
    await expect(client.repairWorkflow("order-404")).rejects.toBeInstanceOf(DwInstanceNotFoundError);
  });
});

describe("errorFromResponse (for relayed proxy answers)", () => {
  const table: Array<[DwErrorReason, number, unknown]> = [
    ["unauthorized", 401, fixture("error-401")],
    ["forbidden", 403, fixture("error-403")],
    ["namespace_not_found", 404, fixture("error-404-namespace")],
    ["instance_not_found", 404, fixture("error-404-instance")],
    ["run_not_found", 404, fixture("error-404-run")],
    ["validation_failed", 422, fixture("error-422")],
    ["version_mismatch", 400, fixture("error-400-version")],
    ["payload_too_large", 413, fixture("error-413")],
    ["conflict", 409, fixture("error-409-historical")],
    ["bad_request", 415, { message: "Request bodies must use a JSON media type.", reason: "unsupported_media_type" }],
    ["server_unavailable", 500, fixture("error-500")],
  ];
  it.each(table)("%s from HTTP %i", (reason, status, body) => {
    expect(errorFromResponse(status, body).reason).toBe(reason);
  });

  it("the proxy's 502 malformed_response → malformed response at the field it named; other 502s stay unavailable", () => {
    const error = errorFromResponse(502, {
      reason: "malformed_response",
      message: "unexpected body",
      issue_path: "$.workflows[0].status",
    });
    expect(error).toBeInstanceOf(DwMalformedResponseError);
    expect(error).toMatchObject({ issuePath: "$.workflows[0].status", httpStatus: 502 });
    expect(errorFromResponse(502, { reason: "server_unavailable" }).reason).toBe("server_unavailable");
  });
});
