import fc from "fast-check";
import { at } from "../../invariant";

/**
 * Every route of the embedded server, as the hostile suites address it (not a test file).
 * `:segments` are filled per request; `operation` is the `control_plane.operation` its errors carry.
 */
export interface Endpoint {
  method: "GET" | "POST" | "PUT" | "DELETE";
  path: string;
  plane: "control" | "worker";
  operation: string | null;
  /** Exempt from the control-plane version header (discovery probes). */
  unversioned?: boolean;
  /** Exempt from the namespace existence check. */
  namespaceExempt?: boolean;
  /** No role check at all (`/health`, `/ready`). */
  open?: boolean;
}

export const CONTROL_ENDPOINTS: readonly Endpoint[] = [
  {
    method: "GET",
    path: "/api/health",
    plane: "control",
    operation: null,
    unversioned: true,
    namespaceExempt: true,
    open: true,
  },
  {
    method: "GET",
    path: "/api/ready",
    plane: "control",
    operation: null,
    unversioned: true,
    namespaceExempt: true,
    open: true,
  },
  {
    method: "GET",
    path: "/api/cluster/info",
    plane: "control",
    operation: null,
    unversioned: true,
    namespaceExempt: true,
  },
  { method: "GET", path: "/api/workflows", plane: "control", operation: "list" },
  { method: "POST", path: "/api/workflows", plane: "control", operation: "start" },
  { method: "GET", path: "/api/workflows/:id", plane: "control", operation: "describe" },
  { method: "GET", path: "/api/workflows/:id/runs", plane: "control", operation: "list_runs" },
  { method: "GET", path: "/api/workflows/:id/runs/:runId", plane: "control", operation: "describe_run" },
  { method: "GET", path: "/api/workflows/:id/debug", plane: "control", operation: "debug_workflow" },
  { method: "GET", path: "/api/workflows/:id/runs/:runId/debug", plane: "control", operation: "debug_workflow" },
  { method: "GET", path: "/api/workflows/:id/runs/:runId/history", plane: "control", operation: "history" },
  { method: "GET", path: "/api/workflows/:id/runs/:runId/history/export", plane: "control", operation: null },
  { method: "POST", path: "/api/workflows/:id/cancel", plane: "control", operation: "cancel" },
  { method: "POST", path: "/api/workflows/:id/runs/:runId/cancel", plane: "control", operation: "cancel" },
  { method: "POST", path: "/api/workflows/:id/terminate", plane: "control", operation: "terminate" },
  { method: "POST", path: "/api/workflows/:id/runs/:runId/terminate", plane: "control", operation: "terminate" },
  { method: "POST", path: "/api/workflows/:id/signal/:name", plane: "control", operation: "signal" },
  { method: "POST", path: "/api/workflows/:id/runs/:runId/signal/:name", plane: "control", operation: "signal" },
  { method: "POST", path: "/api/workflows/:id/query/:name", plane: "control", operation: "query" },
  { method: "POST", path: "/api/workflows/:id/runs/:runId/query/:name", plane: "control", operation: "query" },
  { method: "POST", path: "/api/workflows/:id/repair", plane: "control", operation: "repair" },
  { method: "POST", path: "/api/workflows/:id/archive", plane: "control", operation: "archive" },
  { method: "GET", path: "/api/system/operator-metrics", plane: "control", operation: null },
  { method: "GET", path: "/api/system/metrics", plane: "control", operation: null },
  { method: "GET", path: "/api/system/repair", plane: "control", operation: null },
  { method: "POST", path: "/api/system/repair/pass", plane: "control", operation: null },
  { method: "GET", path: "/api/system/activity-timeouts", plane: "control", operation: null },
  { method: "POST", path: "/api/system/activity-timeouts/pass", plane: "control", operation: null },
  { method: "GET", path: "/api/namespaces", plane: "control", operation: null, namespaceExempt: true },
  { method: "GET", path: "/api/namespaces/:ns", plane: "control", operation: null, namespaceExempt: true },
  // The namespace writes name theirs `:target` (filled with "x"), never `:ns`: a request that reached
  // DELETE /api/namespaces/default would take the suite's namespace and its runs with it.
  { method: "POST", path: "/api/namespaces", plane: "control", operation: null, namespaceExempt: true },
  { method: "PUT", path: "/api/namespaces/:target", plane: "control", operation: null, namespaceExempt: true },
  { method: "DELETE", path: "/api/namespaces/:target", plane: "control", operation: null, namespaceExempt: true },
  {
    method: "PUT",
    path: "/api/namespaces/:target/external-storage",
    plane: "control",
    operation: null,
    namespaceExempt: true,
  },
  { method: "POST", path: "/api/storage/test", plane: "control", operation: null },
  { method: "GET", path: "/api/system/retention", plane: "control", operation: null },
  { method: "POST", path: "/api/system/retention/pass", plane: "control", operation: null },
  { method: "GET", path: "/api/workers", plane: "control", operation: null },
  { method: "GET", path: "/api/workers/:workerId", plane: "control", operation: null },
  { method: "DELETE", path: "/api/workers/:workerId", plane: "control", operation: null },
  { method: "GET", path: "/api/task-queues", plane: "control", operation: null },
  { method: "GET", path: "/api/task-queues/:name", plane: "control", operation: null },
  { method: "GET", path: "/api/search-attributes", plane: "control", operation: null },
  { method: "POST", path: "/api/search-attributes", plane: "control", operation: null },
  { method: "DELETE", path: "/api/search-attributes/:name", plane: "control", operation: null },
  { method: "POST", path: "/api/workflows/:id/update/:name", plane: "control", operation: "update" },
  { method: "POST", path: "/api/workflows/:id/runs/:runId/update/:name", plane: "control", operation: "update" },
  { method: "POST", path: "/api/workflows/:id/request-cancellation", plane: "control", operation: null },
  { method: "POST", path: "/api/workflows/:id/runs/:runId/request-cancellation", plane: "control", operation: null },
  { method: "GET", path: "/api/schedules", plane: "control", operation: null },
  { method: "POST", path: "/api/schedules", plane: "control", operation: null },
  { method: "GET", path: "/api/schedules/:scheduleId", plane: "control", operation: null },
  { method: "PUT", path: "/api/schedules/:scheduleId", plane: "control", operation: null },
  { method: "DELETE", path: "/api/schedules/:scheduleId", plane: "control", operation: null },
  { method: "POST", path: "/api/schedules/:scheduleId/pause", plane: "control", operation: null },
  { method: "POST", path: "/api/schedules/:scheduleId/resume", plane: "control", operation: null },
  { method: "POST", path: "/api/schedules/:scheduleId/trigger", plane: "control", operation: null },
  { method: "POST", path: "/api/schedules/:scheduleId/backfill", plane: "control", operation: null },
  { method: "GET", path: "/api/task-queues/:queue/build-ids", plane: "control", operation: null },
  { method: "POST", path: "/api/task-queues/:queue/build-ids/promote", plane: "control", operation: null },
  { method: "POST", path: "/api/task-queues/:queue/build-ids/drain", plane: "control", operation: null },
  { method: "POST", path: "/api/task-queues/:queue/build-ids/resume", plane: "control", operation: null },
  { method: "GET", path: "/api/deployments", plane: "control", operation: null },
];

export const WORKER_ENDPOINTS: readonly Endpoint[] = [
  "/register",
  "/heartbeat",
  "/workflow-tasks/poll",
  "/workflow-tasks/:id/history",
  "/workflow-tasks/:id/heartbeat",
  "/workflow-tasks/:id/complete",
  "/workflow-tasks/:id/fail",
  "/activity-tasks/poll",
  "/activity-tasks/:id/heartbeat",
  "/activity-tasks/:id/complete",
  "/activity-tasks/:id/fail",
  "/query-tasks/poll",
  "/query-tasks/:id/complete",
  "/query-tasks/:id/fail",
].map((p) => ({ method: "POST" as const, path: `/api/worker${p}`, plane: "worker" as const, operation: null }));

export const ALL_ENDPOINTS: readonly Endpoint[] = [...CONTROL_ENDPOINTS, ...WORKER_ENDPOINTS];
export const POST_ENDPOINTS: readonly Endpoint[] = ALL_ENDPOINTS.filter((e) => e.method === "POST");

/** Fills `:segments` with already-encoded values (missing ones get `fallback`). */
export function fillPath(path: string, encoded: Record<string, string>, fallback = "x"): string {
  return path.replace(/:([a-zA-Z]+)/g, (_m, name: string) => encoded[name] ?? fallback);
}

export function segmentsOf(path: string): string[] {
  return [...path.matchAll(/:([a-zA-Z]+)/g)].map((m) => at(m, 1, "capture"));
}

/** Fragments that break naive path, SQL, HTML and log handling. */
export const NASTY_FRAGMENTS = [
  "/",
  "%",
  "%2F",
  "%00",
  "..",
  ".",
  "../..",
  "\\",
  "\u0000",
  "\u0001",
  "\u001f",
  "\u007f",
  "\n",
  "\r\n",
  "\t",
  " ",
  "?",
  "#",
  "&",
  "=",
  ";",
  "'",
  '"',
  "`",
  "<script>alert(1)</script>",
  '"><img src=x onerror=alert(1)>',
  "ünïcödé",
  "日本語",
  "🚀",
  "\u202e",
  "\ufeff",
  "\ud83d\ude00",
  "%zz",
  "%E0%A4%A",
  "Robert'); DROP TABLE workflow_runs;--",
  "${jndi:ldap://x}",
  "{{7*7}}",
  "a".repeat(300),
] as const;

/** Any string a hostile client could put in an identifier: nasty fragments mixed with arbitrary code points. */
export const hostileString: fc.Arbitrary<string> = fc
  .array(fc.oneof(fc.constantFrom(...NASTY_FRAGMENTS), fc.string({ unit: "binary", minLength: 1, maxLength: 8 })), {
    minLength: 1,
    maxLength: 4,
  })
  .map((parts) => parts.join(""));

/** Arbitrary JSON values, including the awkward ones (unicode keys, `__proto__`, big and tiny numbers). */
export const hostileJson: fc.Arbitrary<unknown> = fc.jsonValue({ maxDepth: 4 });
