import { z } from "zod";
import { clusterInfoSchema, healthSchema } from "@/lib/dw/schemas-fleet";

/**
 * What one probe of the same-origin proxy produced. `failed` means the browser could not reach the
 * console itself (or the request was cut off); answers from the proxy, including its own 502/504
 * when the DW server is down, are `answered`.
 */
export type ProbeResult =
  | { kind: "answered"; status: number; body: unknown; latencyMs: number; at: number }
  | { kind: "failed"; message: string; at: number };

export type ConnectionStatus = "checking" | "connected" | "degraded" | "unauthorized" | "unreachable";

export interface ConnectionState {
  status: ConnectionStatus;
  version: string | null;
  serverId: string | null;
  defaultNamespace: string | null;
  /** Round trip of the last health probe through the proxy, in milliseconds. */
  latencyMs: number | null;
  /** Epoch ms of the most recent probe answer, if any. */
  checkedAt: number | null;
  /** Names of failing health checks, for the degraded state. */
  failingChecks: string[];
  /** The machine-readable reason behind a non-connected state (`server_unavailable`, `http_404`, …). */
  reason: string | null;
}

const reasonBody = z.looseObject({ reason: z.string() });

function reasonOf(result: Extract<ProbeResult, { kind: "answered" }>): string {
  const parsed = reasonBody.safeParse(result.body);
  return parsed.success ? parsed.data.reason : `http_${result.status}`;
}

/** The proxy answers 502/504 with these reasons when the DW server cannot be reached. */
const UNREACHABLE_REASONS = new Set(["server_unavailable", "server_timeout"]);

function unreachableReason(result: ProbeResult | undefined): string | null {
  if (!result) return null;
  if (result.kind === "failed") return "console_unreachable";
  const reason = reasonOf(result);
  return (result.status === 502 || result.status === 504) && UNREACHABLE_REASONS.has(reason) ? reason : null;
}

/** A health check is either a bare status string (`/health`) or an object with one (`/ready`). */
const checkStatus = z.union([z.string(), z.looseObject({ status: z.string() }).transform((check) => check.status)]);

function failingChecks(checks: Record<string, unknown> | undefined): string[] {
  if (!checks) return [];
  return Object.entries(checks)
    .filter(([, value]) => {
      const status = checkStatus.safeParse(value);
      return status.success && status.data !== "ok";
    })
    .map(([name]) => name);
}

/**
 * Derives the indicator's state from the latest `/health` and `/cluster/info` probes. Health says
 * whether the server answers; cluster/info (which needs a valid token) says whether it accepts the
 * console's credentials and who it is.
 */
export function deriveConnection(health: ProbeResult | undefined, info: ProbeResult | undefined): ConnectionState {
  const base: ConnectionState = {
    status: "checking",
    version: null,
    serverId: null,
    defaultNamespace: null,
    latencyMs: health?.kind === "answered" ? health.latencyMs : null,
    checkedAt: Math.max(health?.at ?? 0, info?.at ?? 0) || null,
    failingChecks: [],
    reason: null,
  };

  const down = unreachableReason(health) ?? unreachableReason(info);
  // A latency measured against the proxy's own error answer would describe the console, not the server.
  if (down) return { ...base, status: "unreachable", latencyMs: null, reason: down };

  if (info?.kind === "answered" && (info.status === 401 || info.status === 403)) {
    return { ...base, status: "unauthorized", reason: reasonOf(info) };
  }

  if (info?.kind === "answered" && info.status === 200) {
    const parsed = clusterInfoSchema.safeParse(info.body);
    if (parsed.success) {
      base.version = parsed.data.version ?? null;
      base.serverId = parsed.data.server_id ?? null;
      base.defaultNamespace = parsed.data.default_namespace ?? null;
    }
  }

  if (health?.kind !== "answered") return base;

  const healthBody = healthSchema.safeParse(health.body);
  if (health.status !== 200 || !healthBody.success || healthBody.data.status !== "serving") {
    return {
      ...base,
      status: "degraded",
      failingChecks: healthBody.success ? failingChecks(healthBody.data.checks) : [],
      reason: healthBody.success ? healthBody.data.status : reasonOf(health),
    };
  }

  if (info?.kind !== "answered") return base;
  if (info.status !== 200) return { ...base, status: "degraded", reason: reasonOf(info) };
  return { ...base, status: "connected" };
}
