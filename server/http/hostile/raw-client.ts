import { request as httpRequest } from "node:http";
import type { IncomingHttpHeaders } from "node:http";
import { expect } from "vitest";

/**
 * Hostile-request scaffolding (not a test file). `fetch` normalises paths (`..`, `%2e%2e`),
 * validates headers and adds its own, so these suites speak through `node:http` with the path
 * passed verbatim, no agent (a fresh connection per request) and a hard deadline: a request that
 * does not answer in time fails as a hang instead of stalling the run.
 */
export interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  /** The parsed body; undefined when the body is not JSON. */
  json: unknown;
  ms: number;
}

export interface RawRequest {
  method?: string;
  /** Sent exactly as given: percent-encoding is the caller's job. */
  path: string;
  headers?: Record<string, string | number>;
  body?: string | Buffer;
  timeoutMs?: number;
}

/** The request answered with no bytes before its deadline. */
export class HangError extends Error {}

export function rawRequest(baseUrl: string, req: RawRequest): Promise<RawResponse> {
  const base = new URL(baseUrl);
  const timeoutMs = req.timeoutMs ?? 15_000;
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { ...(req.headers ?? {}) };
    if (req.body !== undefined && !Object.keys(headers).some((k) => k.toLowerCase() === "content-length"))
      headers["content-length"] = Buffer.byteLength(req.body);
    const r = httpRequest(
      { host: base.hostname, port: base.port, method: req.method ?? "GET", path: req.path, headers, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("error", reject);
        res.on("end", () => {
          clearTimeout(timer);
          const text = Buffer.concat(chunks).toString("utf8");
          let json: unknown;
          try {
            json = JSON.parse(text) as unknown;
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json, ms: performance.now() - started });
        });
      },
    );
    const timer = setTimeout(() => {
      r.destroy();
      reject(new HangError(`${req.method ?? "GET"} ${req.path} did not answer within ${timeoutMs} ms`));
    }, timeoutMs);
    r.on("error", (e) => {
      clearTimeout(timer);
      reject(e);
    });
    if (req.body !== undefined) r.write(req.body);
    r.end();
  });
}

export const CP_HEADERS = { accept: "application/json", "x-durable-workflow-control-plane-version": "2" } as const;
export const WORKER_HEADERS = {
  accept: "application/json",
  "content-type": "application/json",
  "x-durable-workflow-protocol-version": "1.19",
} as const;

/** Every documented 4xx `reason` (server-api.md §1.7, §5; the engine's lease refusals from v2-model.md). */
export const DOCUMENTED_REASONS: Record<number, readonly string[]> = {
  400: [
    "missing_control_plane_version",
    "unsupported_control_plane_version",
    "missing_protocol_version",
    "unsupported_protocol_version",
    "malformed_json",
  ],
  401: ["unauthorized"],
  403: ["forbidden"],
  404: [
    "namespace_not_found",
    "instance_not_found",
    "run_not_found",
    "worker_not_found",
    "not_found",
    "worker_not_registered",
    "task_not_found",
    "attempt_not_found",
    "activity_execution_missing",
    // Queries (WorkflowQueryTaskBroker.php@11d35b7, DefaultWorkflowControlPlane::query@8dc90d64).
    "query_not_found",
    "rejected_unknown_query",
    "query_task_not_found",
    // Search attributes (SearchAttributeController.php@11d35b7).
    "attribute_not_found",
    // Schedules (ScheduleController.php@11d35b7).
    "schedule_not_found",
  ],
  405: ["method_not_allowed"],
  409: [
    "historical_run_command_rejected",
    "run_not_active",
    "run_not_closed",
    "instance_not_started",
    "selected_run_not_current",
    "workflow_id_reserved_in_namespace",
    "task_queue_mismatch",
    "build_id_mismatch",
    "task_mismatch",
    "lease_owner_mismatch",
    "run_cancelled",
    "run_terminated",
    "run_closed",
    "workflow_task_attempt_mismatch",
    "task_not_leased",
    "lease_expired",
    "stale_attempt",
    "query_rejected",
    "query_worker_unavailable",
    "workflow_definition_unavailable",
    "query_task_not_leased",
    "query_task_attempt_mismatch",
    "system_attribute",
    "name_reserved",
    "attribute_already_exists",
  ],
  412: ["worker_not_registered"],
  413: ["payload_too_large"],
  415: ["unsupported_media_type"],
  422: ["validation_failed", "structural_limit_exceeded", "search_attribute_limit_reached"],
};

function asRecord(v: unknown, context: string): Record<string, unknown> {
  if (v === null || typeof v !== "object" || Array.isArray(v)) throw new Error(`${context}: body is not a JSON object`);
  return v as Record<string, unknown>;
}

/** Never 5xx, always JSON; the plain status/ok split is the caller's. */
export function expectAnswered(res: RawResponse, context: string): Record<string, unknown> {
  expect(res.status, `${context} → ${res.status} ${res.text.slice(0, 300)}`).toBeLessThan(500);
  expect(String(res.headers["content-type"] ?? ""), `${context}: content-type`).toContain("application/json");
  return asRecord(res.json, `${context} (${res.status} ${res.text.slice(0, 200)})`);
}

/**
 * A documented control-plane 4xx: `{message: string, reason: <documented>}`, the version header,
 * `validation_failed` with both maps, and `control_plane` when the route is a workflow operation.
 * Command rejections (409 with a full command body) carry `outcome` + `command_status: "rejected"`.
 */
export function expectCpError(
  res: RawResponse,
  context: string,
  opts: { operation?: string | null } = {},
): Record<string, unknown> {
  const body = expectAnswered(res, context);
  expect(res.status, `${context}: expected 4xx, got ${res.status} ${res.text.slice(0, 300)}`).toBeGreaterThanOrEqual(
    400,
  );
  const reason = String(body.reason);
  if (res.status === 409 && body.command_status === "rejected") {
    expect(typeof body.outcome, context).toBe("string");
  } else {
    expect(DOCUMENTED_REASONS[res.status] ?? [], `${context}: reason ${reason} for ${res.status}`).toContain(reason);
    expect(typeof body.message, `${context}: message`).toBe("string");
  }
  if (reason !== "not_found" && reason !== "method_not_allowed")
    expect(res.headers["x-durable-workflow-control-plane-version"], `${context}: version header`).toBe("2");
  if (reason === "validation_failed") {
    expect(body.errors, context).toBeTypeOf("object");
    expect(body.validation_errors, context).toEqual(body.errors);
  }
  if (opts.operation && reason !== "not_found" && reason !== "method_not_allowed") {
    const env = asRecord(body.control_plane, `${context}: control_plane`);
    expect(env.operation, context).toBe(opts.operation);
    expect(env.schema, context).toBe("durable-workflow.v2.control-plane-response");
  }
  return body;
}

/** A documented worker-plane 4xx: `error` or `message`, a documented reason, the protocol fields. */
export function expectWorkerError(res: RawResponse, context: string): Record<string, unknown> {
  const body = expectAnswered(res, context);
  expect(res.status, `${context}: expected 4xx, got ${res.status} ${res.text.slice(0, 300)}`).toBeGreaterThanOrEqual(
    400,
  );
  const reason = String(body.reason);
  expect(DOCUMENTED_REASONS[res.status] ?? [], `${context}: reason ${reason} for ${res.status}`).toContain(reason);
  expect(typeof (body.error ?? body.message), `${context}: error/message`).toBe("string");
  if (reason !== "not_found" && reason !== "method_not_allowed") {
    expect(res.headers["x-durable-workflow-protocol-version"], `${context}: protocol header`).toBe("1.20");
    expect(body.protocol_version, context).toBe("1.20");
    expect(body.server_capabilities, context).toBeTypeOf("object");
  }
  return body;
}

/**
 * Property-run settings: a fixed seed so CI is reproducible, `HOSTILE_SEED` to explore or replay
 * (fast-check prints the seed and shrink path of any counterexample), `HOSTILE_RUNS` to scale.
 */
export function propertyParams(defaultRuns: number): { seed: number; numRuns: number; endOnFailure: true } {
  const seed = process.env.HOSTILE_SEED;
  const runs = process.env.HOSTILE_RUNS;
  return {
    seed: seed !== undefined && seed !== "" ? Number(seed) : 20_261_130,
    numRuns: runs !== undefined && runs !== "" ? Number(runs) : defaultRuns,
    endOnFailure: true,
  };
}
