import type { FastifyRequest } from "fastify";
import { z } from "zod";
import type { Engine } from "../../engine";
import { EngineError } from "../../engine";
import type { ExportSigning } from "../../read/export";
import type { AuthConfig, Role } from "../auth";
import type { Operation, OperationContext } from "./envelope";

/** Per-route control-plane policy, read by the scope's hooks. */
export interface CpRouteConfig {
  /** Roles allowed; null = unauthenticated probe. */
  roles: readonly Role[] | null;
  /** Requires `X-Durable-Workflow-Control-Plane-Version: 2`. */
  versioned: boolean;
  /** Requires the resolved namespace to exist. */
  namespaced: boolean;
  /** The `control_plane` operation of `/workflows*` routes. */
  operation: Operation | null;
}

declare module "fastify" {
  interface FastifyContextConfig {
    cp?: CpRouteConfig;
  }
}

export interface ControlPlaneDeps {
  engine: Engine;
  auth: AuthConfig;
  /** Aborted when the server closes, releasing held history long-polls. */
  shutdown: AbortSignal;
  /** `wait_new_event` hold; 30 s unless a test shortens it. */
  historyPollTimeoutMs: number;
  exportSigning: ExportSigning | null;
}

export const ALL_ROLES: readonly Role[] = ["worker", "operator", "admin"];
export const OPERATOR: readonly Role[] = ["operator", "admin"];
export const ADMIN: readonly Role[] = ["admin"];

export function routeConfig(
  roles: readonly Role[] | null,
  opts: Partial<Omit<CpRouteConfig, "roles">> = {},
): { cp: CpRouteConfig } {
  return {
    cp: {
      roles,
      versioned: opts.versioned ?? true,
      namespaced: opts.namespaced ?? true,
      operation: opts.operation ?? null,
    },
  };
}

export function cpConfig(request: FastifyRequest): CpRouteConfig | null {
  return request.routeOptions.config?.cp ?? null;
}

/** `X-Namespace` → `?namespace=` → DW_DEFAULT_NAMESPACE → `default`, lower-cased. */
export function namespaceOf(request: FastifyRequest): string {
  const header = request.headers["x-namespace"];
  const fromHeader = Array.isArray(header) ? header[0] : header;
  const query = (request.query as Record<string, unknown> | undefined)?.namespace;
  const raw =
    (fromHeader && fromHeader.trim() !== "" ? fromHeader : undefined) ??
    (typeof query === "string" && query !== "" ? query : undefined) ??
    process.env.DW_DEFAULT_NAMESPACE ??
    "default";
  return raw.trim().toLowerCase();
}

/** The operation and URL identifiers of a `/workflows*` request, for envelopes on success and error alike. */
export function operationOf(request: FastifyRequest): OperationContext | null {
  const op = cpConfig(request)?.operation ?? null;
  if (!op) return null;
  const params = (request.params ?? {}) as Record<string, string | undefined>;
  return {
    operation: op,
    workflowId: params.id ?? null,
    runId: params.runId ?? null,
    operationName: params.name ?? null,
  };
}

/** Zod parse that throws the documented 422 `validation_failed` map. */
export function parseInput<T>(schema: z.ZodType<T>, value: unknown): T {
  const r = schema.safeParse(value ?? {});
  if (r.success) return r.data;
  const errors: Record<string, string[]> = {};
  for (const issue of r.error.issues) {
    const key = issue.path.join(".") || "body";
    errors[key] = [...(errors[key] ?? []), issue.message];
  }
  const first = Object.values(errors)[0]?.[0] ?? "The given data was invalid.";
  throw new EngineError(422, "validation_failed", first, { errors, validation_errors: errors });
}

/** Query-string integer in [min, max], Laravel-style messages. */
export function intParam(field: string, min: number, max: number) {
  return z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v === "") return undefined;
      if (!/^-?\d+$/.test(v)) {
        ctx.addIssue({ code: "custom", message: `The ${field.replace(/_/g, " ")} field must be an integer.` });
        return z.NEVER;
      }
      const n = Number(v);
      if (n < min || n > max) {
        ctx.addIssue({
          code: "custom",
          message: `The ${field.replace(/_/g, " ")} field must be between ${min} and ${max}.`,
        });
        return z.NEVER;
      }
      return n;
    });
}
