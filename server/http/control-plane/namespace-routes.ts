import { mkdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { createHash } from "node:crypto";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { EngineError } from "../../engine";
import type { ExternalStoragePolicy, NamespaceRecord } from "../../engine/namespace-admin";
import {
  createNamespace,
  deleteNamespace,
  readNamespace,
  setExternalStorage,
  updateNamespace,
} from "../../engine/namespace-admin";
import {
  expiredRunIds,
  retentionCutoff,
  retentionDays,
  RETENTION_SCAN_MAX,
  runRetentionPass,
} from "../../engine/history-retention";
import { isoOffset } from "../../read/format";
import type { ControlPlaneDeps } from "./context";
import { ADMIN, intParam, namespaceOf, parseInput, routeConfig } from "./context";
import { sendControlPlane } from "./envelope";

/**
 * Namespace writes, the storage probe and history retention, as durable-workflow/server serves
 * them: routes/api.php (read_file id 62454297382: POST/PUT/DELETE /namespaces*, PUT
 * …/external-storage and POST /storage/test for admin; GET/POST /system/retention* for admin),
 * NamespaceController.php@11d35b7 (+ `destroy` of the newer controller), StorageController.php
 * and SystemController.php@11d35b7. Validation answers 422 in Laravel's words.
 */

const DRIVERS = ["local", "s3", "gcs", "azure"] as const;

const field = (name: string) => name.replace(/_/g, " ");
const nullableText = (name: string, max: number) =>
  z
    .string({ message: `The ${field(name)} field must be a string.` })
    .max(max, { message: `The ${field(name)} field must not be greater than ${max} characters.` })
    .nullish();
const retentionField = z
  .number({ message: "The retention days field must be an integer." })
  .int({ message: "The retention days field must be an integer." })
  .min(1, { message: "The retention days field must be at least 1." })
  .max(365, { message: "The retention days field must not be greater than 365." })
  .nullish();

const createBody = z
  .object({
    name: z
      .string({ message: "The name field is required." })
      .min(1, { message: "The name field is required." })
      .max(128, { message: "The name field must not be greater than 128 characters." })
      .regex(/^[a-zA-Z0-9._-]+$/, { message: "The name field format is invalid." }),
    description: nullableText("description", 1000),
    retention_days: retentionField,
  })
  .loose();

const updateBody = z.object({ description: nullableText("description", 1000), retention_days: retentionField }).loose();

const configText = (name: string, max: number) => nullableText(`config.${name}`, max);
const storageBody = z
  .object({
    driver: z.enum(DRIVERS, { message: "The selected driver is invalid." }),
    enabled: z.boolean({ message: "The enabled field must be true or false." }).optional(),
    threshold_bytes: z
      .number({ message: "The threshold bytes field must be an integer." })
      .int({ message: "The threshold bytes field must be an integer." })
      .min(1, { message: "The threshold bytes field must be at least 1." })
      .nullish(),
    config: z
      .object({
        uri: configText("uri", 2048),
        bucket: configText("bucket", 255),
        disk: configText("disk", 255),
        prefix: configText("prefix", 1024),
        region: configText("region", 128),
        endpoint: configText("endpoint", 2048),
        auth_profile: configText("auth_profile", 255),
      })
      .loose()
      .nullish(),
  })
  .loose();

const storageTestBody = z
  .object({
    driver: z.enum(DRIVERS, { message: "The selected driver is invalid." }).nullish(),
    small_payload_bytes: z
      .number({ message: "The small payload bytes field is required." })
      .int({ message: "The small payload bytes field must be an integer." })
      .min(1, { message: "The small payload bytes field must be at least 1." })
      .max(1_048_576, { message: "The small payload bytes field must not be greater than 1048576." }),
    large_payload_bytes: z
      .number({ message: "The large payload bytes field is required." })
      .int({ message: "The large payload bytes field must be an integer." })
      .min(1, { message: "The large payload bytes field must be at least 1." })
      .max(16_777_216, { message: "The large payload bytes field must not be greater than 16777216." }),
  })
  .loose();

const retentionPassBody = z
  .object({
    limit: z
      .number({ message: "The limit field must be an integer." })
      .int({ message: "The limit field must be an integer." })
      .min(1, { message: "The limit field must be at least 1." })
      .nullish(),
    run_ids: z
      .array(z.string().min(1).max(128), { message: "The run ids field must be an array." })
      .max(100, { message: "The run ids field must not have more than 100 items." })
      .nullish(),
  })
  .loose();

/** `serializeNamespace` of the controller; create omits `updated_at`, update omits `created_at`. */
function view(ns: NamespaceRecord, omit?: "created_at" | "updated_at"): Record<string, unknown> {
  const out: Record<string, unknown> = {
    name: ns.name,
    description: ns.description,
    retention_days: ns.retention_days,
    status: ns.status,
    external_payload_storage: ns.external_payload_storage,
    created_at: isoOffset(ns.created_at),
    updated_at: isoOffset(ns.updated_at),
  };
  if (omit) delete out[omit];
  return out;
}

/** The policy the controller stores: driver, enabled (default true), threshold when given, non-empty config. */
function policyOf(b: z.infer<typeof storageBody>): ExternalStoragePolicy {
  const policy: ExternalStoragePolicy = { driver: b.driver, enabled: b.enabled ?? true };
  if (b.threshold_bytes !== null && b.threshold_bytes !== undefined) policy.threshold_bytes = b.threshold_bytes;
  const config = Object.fromEntries(
    Object.entries(b.config ?? {}).filter(([, v]) => v !== null && v !== undefined && v !== ""),
  ) as Record<string, string>;
  if (Object.keys(config).length > 0) policy.config = config;
  return policy;
}

function diagnosticError(
  reason: string,
  message: string,
  namespace: string,
  driver: string | null,
  extra: Record<string, unknown> = {},
) {
  return { status: "failed", reason, message, namespace, driver, ...extra };
}

/**
 * The `local` driver's root: a `file://` config uri, else `external-payloads/<namespace>` beside
 * the database (the real one's storage_path('app/external-payloads/<ns>')).
 */
function localRoot(deps: ControlPlaneDeps, policy: ExternalStoragePolicy, namespace: string): string {
  const uri = policy.config?.uri;
  if (typeof uri === "string" && uri.startsWith("file://")) return uri.slice(7).replace(/\/+$/, "");
  return join(dirname(deps.engine.db.name), "external-payloads", namespace);
}

/** LocalFilesystemExternalPayloadStorage's put / get / delete of one payload, verified by hash. */
function roundTrip(root: string, kind: "small" | "large", bytes: number) {
  const payload = (kind === "small" ? "s" : "l").repeat(bytes);
  const sha256 = createHash("sha256").update(payload).digest("hex");
  mkdirSync(root, { recursive: true });
  const path = join(realpathSync(root), `storage-test-${kind}`, sha256.slice(0, 2), sha256);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, payload);
  const read = readFileSync(path, "utf8");
  rmSync(path, { force: true });
  if (read !== payload) throw new Error("External storage round trip failed integrity verification.");
  return { status: "passed", bytes, sha256, reference_uri: pathToFileURL(path).href };
}

export function registerNamespaceRoutes(scope: FastifyInstance, deps: ControlPlaneDeps): void {
  const { engine } = deps;
  // The real routes resolve the request's namespace on these too (`$ns`); the twin's list and
  // describe are exempt (fleet-routes.ts), and the writes name their namespace in the path.
  const admin = { config: routeConfig(ADMIN, { namespaced: false }) };
  const adminInNamespace = { config: routeConfig(ADMIN) };

  scope.post("/namespaces", admin, async (request, reply) => {
    const b = parseInput(createBody, request.body);
    const ns = createNamespace(engine.db, engine.clock.now(), {
      name: b.name,
      description: b.description ?? null,
      retention_days: b.retention_days ?? null,
    });
    return sendControlPlane(reply, 201, view(ns, "updated_at"), null);
  });

  scope.put<{ Params: { ns: string } }>("/namespaces/:ns", admin, async (request, reply) => {
    const name = request.params.ns.toLowerCase();
    if (!readNamespace(engine.db, name)) throw notFound(name);
    const b = parseInput(updateBody, request.body);
    const ns = updateNamespace(engine.db, engine.clock.now(), name, b);
    return sendControlPlane(reply, 200, view(ns, "created_at"), null);
  });

  scope.delete<{ Params: { ns: string } }>("/namespaces/:ns", admin, async (request, reply) => {
    const name = request.params.ns.toLowerCase();
    if (!readNamespace(engine.db, name)) throw notFound(name);
    return sendControlPlane(reply, 200, deleteNamespace(engine.db, name), null);
  });

  scope.put<{ Params: { ns: string } }>("/namespaces/:ns/external-storage", admin, async (request, reply) => {
    const name = request.params.ns.toLowerCase();
    if (!readNamespace(engine.db, name)) throw notFound(name);
    const b = parseInput(storageBody, request.body);
    return sendControlPlane(
      reply,
      200,
      view(setExternalStorage(engine.db, engine.clock.now(), name, policyOf(b))),
      null,
    );
  });

  scope.post("/storage/test", adminInNamespace, async (request, reply) => {
    const [status, body] = storageTest(deps, namespaceOf(request), parseInput(storageTestBody, request.body));
    return sendControlPlane(reply, status, body, null);
  });

  scope.get("/system/retention", adminInNamespace, async (request, reply) => {
    const q = parseInput(z.object({ limit: intParam("limit", 1, Number.MAX_SAFE_INTEGER) }).loose(), request.query);
    const namespace = namespaceOf(request);
    const limit = Math.min(RETENTION_SCAN_MAX, q.limit ?? RETENTION_SCAN_MAX);
    const now = engine.clock.now();
    const ids = expiredRunIds(engine.db, namespace, now, limit);
    return sendControlPlane(
      reply,
      200,
      {
        namespace,
        retention_days: retentionDays(engine.db, namespace),
        cutoff: isoOffset(retentionCutoff(engine.db, namespace, now)),
        expired_run_count: ids.length,
        expired_run_ids: ids,
        scan_limit: limit,
        scan_pressure: ids.length >= limit,
      },
      null,
    );
  });

  scope.post("/system/retention/pass", adminInNamespace, async (request, reply) => {
    const b = parseInput(retentionPassBody, request.body);
    const limit = Math.min(RETENTION_SCAN_MAX, b.limit ?? RETENTION_SCAN_MAX);
    const runIds = (b.run_ids ?? []).map((id) => id.trim());
    const report = runRetentionPass(engine.db, namespaceOf(request), engine.clock.now(), limit, runIds);
    return sendControlPlane(reply, report.failed > 0 ? 207 : 200, report, null);
  });
}

function notFound(name: string): EngineError {
  return new EngineError(404, "namespace_not_found", `Namespace [${name}] not found.`, { namespace: name });
}

/** The storage probe's refusals in the real order (no driver, disabled, another driver, not local), else a round trip. */
function storageTest(
  deps: ControlPlaneDeps,
  namespace: string,
  b: z.infer<typeof storageTestBody>,
): [number, Record<string, unknown>] {
  const policy = readNamespace(deps.engine.db, namespace)?.external_payload_storage ?? null;
  const driver = b.driver ?? policy?.driver ?? null;
  if (!driver)
    return [
      422,
      diagnosticError(
        "external_storage_not_configured",
        "External payload storage is not configured for this namespace.",
        namespace,
        null,
      ),
    ];
  if (policy?.enabled === false)
    return [
      422,
      diagnosticError(
        "external_storage_disabled",
        "External payload storage is disabled for this namespace.",
        namespace,
        driver,
      ),
    ];
  if (driver !== policy?.driver)
    return [
      422,
      diagnosticError(
        "storage_driver_unavailable",
        "The requested external payload storage driver is not configured for this namespace.",
        namespace,
        driver,
        { supported_diagnostic_drivers: ["local"] },
      ),
    ];
  // Object stores need a Laravel filesystem disk on the real server; the twin has none to talk to.
  if (driver !== "local")
    return [
      422,
      diagnosticError(
        "storage_driver_unavailable",
        "The server can persist this storage policy, but the configured storage driver is not available in this runtime.",
        namespace,
        driver,
        { supported_diagnostic_drivers: ["local", "s3", "gcs", "azure"] },
      ),
    ];
  const root = localRoot(deps, policy, namespace);
  return [
    200,
    {
      status: "passed",
      namespace,
      driver,
      small_payload: roundTrip(root, "small", b.small_payload_bytes),
      large_payload: roundTrip(root, "large", b.large_payload_bytes),
    },
  ];
}
