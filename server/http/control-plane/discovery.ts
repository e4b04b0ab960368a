import type { FastifyInstance } from "fastify";
import { STRUCTURAL_LIMITS } from "../../engine/metrics";
import { repairStatus } from "../../engine/repair-pass";
import { fleetSummary } from "../../read/fleet";
import { isoOffset } from "../../read/format";
import { MAX_PAYLOAD_BYTES } from "../worker-plane";
import {
  SERVER_CAPABILITIES,
  WORKER_PROTOCOL_HEADER,
  WORKER_PROTOCOL_VERSION,
  workerProtocolNegotiation,
} from "../worker-protocol";
import {
  authCompositionContract,
  clientCompatibility,
  REQUEST_CONTRACT_SCHEMA,
  REQUEST_CONTRACT_VERSION,
  SUPPORTED_PYTHON_SDK,
} from "./compatibility";
import type { ControlPlaneDeps } from "./context";
import { ALL_ROLES, namespaceOf, routeConfig } from "./context";
import { CONTROL_PLANE_HEADER, CONTROL_PLANE_VERSION, OPERATIONS, PROJECTED_FIELDS, contractOf } from "./envelope";
import type { Operation } from "./envelope";

export const SERVER_VERSION = "2.0.0";

const REQUIRED_TABLES = [
  "namespaces",
  "workflow_instances",
  "workflow_runs",
  "workflow_history_events",
  "workflow_tasks",
  "workflow_run_summaries",
];

/**
 * `control_plane.request_contract`: the canonical request vocabulary the CLI requires; sdk-python
 * 2.12.0 checks its schema and version before registering (durable_workflow/worker.py
 * `_validate_server_compatibility`).
 */
export const REQUEST_CONTRACT = {
  schema: REQUEST_CONTRACT_SCHEMA,
  version: REQUEST_CONTRACT_VERSION,
  operations: {
    list: {
      fields: {
        status: {
          canonical_values: ["running", "completed", "failed"],
          rejected_aliases: { cancelled: "failed", terminated: "failed", pending: "running", waiting: "running" },
        },
      },
    },
    start: {
      fields: {
        duplicate_policy: {
          canonical_values: ["fail", "use-existing"],
          rejected_aliases: { use_existing: "use-existing" },
        },
        execution_timeout_seconds: { type: "integer", min: 1 },
        run_timeout_seconds: { type: "integer", min: 1 },
        payload_codec: {
          type: "string",
          canonical_values: ["avro"],
          description: "Codec used for serializing workflow payloads. Inferred from input envelope when omitted.",
        },
      },
      unsupported_fields: [
        "workflow_execution_timeout",
        "workflow_run_timeout",
        "workflow_task_timeout",
        "retry_policy",
        "idempotency_key",
        "request_id",
      ],
    },
    // ControlPlaneRequestContract@11d35b7; sdk-python reads `update.fields.wait_for` to decide that
    // updates are available (durable_workflow/client.py@2.12.0 `_require_update_wait_stage`).
    update: {
      fields: { wait_for: { canonical_values: ["accepted", "completed"] } },
      removed_fields: { wait_policy: "Use wait_for." },
    },
  },
} as const;

export const LIMITS = {
  max_payload_bytes: MAX_PAYLOAD_BYTES,
  max_memo_bytes: 262_144,
  max_search_attributes: 100,
  max_search_attribute_key_length: 128,
  max_search_attribute_value_bytes: 2048,
  max_operation_name_length: 256,
  max_pending_activities: 2000,
  max_pending_children: 2000,
} as const;

function dbHealthy(deps: ControlPlaneDeps): boolean {
  try {
    deps.engine.db.prepare("SELECT 1").get();
    return true;
  } catch {
    return false;
  }
}

/** `GET /ready`: the database, its tables, the default namespace and auth, each with its remedy. */
function readiness(deps: ControlPlaneDeps): { ready: boolean; body: Record<string, unknown> } {
  const { engine } = deps;
  const dbOk = dbHealthy(deps);
  const tables = dbOk
    ? new Set(
        (engine.db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]).map(
          (r) => r.name,
        ),
      )
    : new Set<string>();
  const missing = REQUIRED_TABLES.filter((t) => !tables.has(t));
  const defaultNs = process.env.DW_DEFAULT_NAMESPACE ?? "default";
  const nsOk = dbOk && engine.db.prepare("SELECT 1 FROM namespaces WHERE name = ?").get(defaultNs) !== undefined;
  const authOk = deps.auth.driver === "none" || Object.values(deps.auth.tokens).some((t) => t !== null);
  const ready = dbOk && missing.length === 0 && nsOk && authOk;
  return {
    ready,
    body: {
      status: ready ? "ready" : "not_ready",
      timestamp: isoOffset(engine.clock.now()),
      checks: {
        database: dbOk
          ? { status: "ok" }
          : { status: "unavailable", message: "The SQLite database cannot be queried." },
        migrations: !dbOk
          ? { status: "unavailable" }
          : missing.length === 0
            ? { status: "ok" }
            : {
                status: "missing",
                missing_tables: missing,
                remediation: "Restart the server so it applies its migrations.",
              },
        default_namespace: nsOk
          ? { status: "ok", namespace: defaultNs }
          : { status: "missing", namespace: defaultNs, remediation: "Create the default namespace." },
        cache: { status: "ok", store: "memory" },
        auth: authOk
          ? { status: "ok", driver: deps.auth.driver }
          : {
              status: "missing",
              driver: deps.auth.driver,
              remediation: "Set DW_OPERATOR_TOKEN / DW_ADMIN_TOKEN / DW_WORKER_TOKEN, or DW_AUTH_DRIVER=none.",
            },
      },
    },
  };
}

/** What `/cluster/info` says this server supports. */
function clusterCapabilities(): Record<string, unknown> {
  return {
    workflow_tasks: true,
    activity_tasks: true,
    signals: true,
    queries: SERVER_CAPABILITIES.query_tasks,
    updates: true,
    // Schedules run in the twin (server/engine/schedules.ts), as HealthController@11d35b7 advertises them.
    schedules: true,
    schedule_jitter: true,
    schedule_max_runs: true,
    search_attributes: true,
    history_export: true,
    continue_as_new: SERVER_CAPABILITIES.supported_workflow_task_commands.includes("continue_as_new"),
    child_workflows: SERVER_CAPABILITIES.supported_workflow_task_commands.includes("start_child_workflow"),
    activity_timeouts: true,
    activity_retry_policy: true,
    child_workflow_retry_policy: SERVER_CAPABILITIES.child_workflow_retry_policy,
    child_workflow_timeouts: SERVER_CAPABILITIES.child_workflow_timeouts,
    parent_close_policy: SERVER_CAPABILITIES.parent_close_policy,
    non_retryable_failures: true,
    history_retention: true,
    payload_codec_envelope: true,
    payload_codec_envelope_responses: true,
    bridge_adapter_outcome_contract: false,
    external_executor_config_contract: false,
    invocable_carrier_contract: false,
    payload_codecs: ["avro"],
    payload_codecs_engine_specific: {},
    response_compression: ["gzip", "deflate"],
  };
}

/** `GET /cluster/info`: version, capabilities, fleet and repair state, limits and the contracts. */
function clusterInfo(deps: ControlPlaneDeps, namespace: string): Record<string, unknown> {
  const { engine } = deps;
  const now = engine.clock.now();
  const repair = repairStatus(engine, now);
  const operations: Record<string, unknown> = {};
  for (const op of Object.keys(OPERATIONS) as Operation[]) operations[op] = contractOf(op);
  return {
    server_id: process.env.DW_SERVER_ID ?? "breakwater-embedded",
    version: SERVER_VERSION,
    default_namespace: process.env.DW_DEFAULT_NAMESPACE ?? "default",
    supported_sdk_versions: { php: ">=1.0", python: SUPPORTED_PYTHON_SDK, typescript: ">=0.1" },
    capabilities: clusterCapabilities(),
    worker_fleet: fleetSummary(engine.db, namespace, now),
    task_repair: repair,
    limits: LIMITS,
    structural_limits: STRUCTURAL_LIMITS,
    client_compatibility: clientCompatibility(),
    auth_composition_contract: authCompositionContract(deps.auth),
    control_plane: {
      version: CONTROL_PLANE_VERSION,
      header: CONTROL_PLANE_HEADER,
      response_contract: {
        schema: "durable-workflow.v2.control-plane-response",
        version: 1,
        contract: {
          schema: "durable-workflow.v2.control-plane-response.contract",
          version: 1,
          legacy_field_policy: "reject_non_canonical",
        },
        projected_fields: [...PROJECTED_FIELDS],
        operations,
      },
      request_contract: REQUEST_CONTRACT,
    },
    worker_protocol: { version: WORKER_PROTOCOL_VERSION, server_capabilities: SERVER_CAPABILITIES },
    // Only the worker_protocol family's negotiation, where the real server publishes it
    // (durable-workflow/server's cluster/info controller, `surfaceStabilityContract()`); no
    // schema/version, since the rest of that package-owned contract is not reproduced here.
    surface_stability_contract: {
      surface_families: {
        worker_protocol: {
          authority_manifest: "worker_protocol",
          requires_protocol_header: WORKER_PROTOCOL_HEADER,
          negotiation: workerProtocolNegotiation(),
        },
      },
    },
  };
}

export function registerDiscoveryRoutes(scope: FastifyInstance, deps: ControlPlaneDeps): void {
  const { engine } = deps;

  scope.get(
    "/health",
    { config: routeConfig(null, { versioned: false, namespaced: false }) },
    async (_request, reply) => {
      const ok = dbHealthy(deps);
      return reply.code(ok ? 200 : 503).send({
        status: ok ? "serving" : "degraded",
        timestamp: isoOffset(engine.clock.now()),
        checks: { database: ok ? "ok" : "unavailable" },
      });
    },
  );

  scope.get(
    "/ready",
    { config: routeConfig(null, { versioned: false, namespaced: false }) },
    async (_request, reply) => {
      const { ready, body } = readiness(deps);
      return reply.code(ready ? 200 : 503).send(body);
    },
  );

  scope.get(
    "/cluster/info",
    { config: routeConfig(ALL_ROLES, { versioned: false, namespaced: false }) },
    async (request, reply) => reply.send(clusterInfo(deps, namespaceOf(request))),
  );
}
