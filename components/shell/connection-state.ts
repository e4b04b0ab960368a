import type { ClusterInfo, Health } from "@/lib/dw/schemas-fleet";

import type { ProbeResult } from "@/lib/queries/connection";
import { HEALTH_INTERVAL_MS } from "@/lib/queries/connection";

export type { ProbeResult } from "@/lib/queries/connection";

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

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/*
 * Probe bodies are narrowed by hand, not with zod: the proxy has already validated 200/503 health
 * and 200 cluster/info bodies against the schemas (answering 502 `malformed_response` otherwise),
 * and keeping zod out of this module keeps it out of every page's first-load JavaScript.
 */

function reasonOf(result: Extract<ProbeResult, { kind: "answered" }>): string {
  return isRecord(result.body) && typeof result.body.reason === "string" ? result.body.reason : `http_${result.status}`;
}

function healthOf(body: unknown): Pick<Health, "status" | "checks"> | null {
  if (!isRecord(body) || typeof body.status !== "string") return null;
  return { status: body.status, checks: isRecord(body.checks) ? body.checks : undefined };
}

function optionalText(value: unknown): string | null {
  return typeof value === "string" ? value : null;
}

function clusterIdentity(body: unknown): Pick<ClusterInfo, "version" | "server_id" | "default_namespace"> | null {
  if (!isRecord(body)) return null;
  return {
    version: optionalText(body.version),
    server_id: optionalText(body.server_id),
    default_namespace: optionalText(body.default_namespace),
  };
}

/** The proxy answers 502/504 with these reasons when the DW server cannot be reached. */
const UNREACHABLE_REASONS = new Set(["server_unavailable", "server_timeout"]);

function unreachableReason(result: ProbeResult | undefined): string | null {
  if (!result) return null;
  if (result.kind === "failed") return "console_unreachable";
  const reason = reasonOf(result);
  return (result.status === 502 || result.status === 504) && UNREACHABLE_REASONS.has(reason) ? reason : null;
}

/** Whether a probe says the DW server (or the console) cannot be reached. */
export function isUnreachable(result: ProbeResult | undefined): boolean {
  return unreachableReason(result) !== null;
}

/** A health check is either a bare status string (`/health`) or an object with one (`/ready`). */
function checkStatus(value: unknown): string | null {
  if (typeof value === "string") return value;
  return isRecord(value) && typeof value.status === "string" ? value.status : null;
}

function failingChecks(checks: Record<string, unknown> | undefined): string[] {
  if (!checks) return [];
  return Object.entries(checks)
    .filter(([, value]) => {
      const status = checkStatus(value);
      return status !== null && status !== "ok";
    })
    .map(([name]) => name);
}

/**
 * A health answer older than this no longer says anything about now (three probe intervals: probes
 * pause in a hidden tab, and a hanging server answers only at the console's read timeout).
 */
export const STALE_AFTER_MS = 3 * HEALTH_INTERVAL_MS;

/** What the page knows besides the probes (issue 37: "Connected" while the page said the server was not answering). */
export interface ConnectionEvidence {
  /** The current time: an old answer is not a present state. */
  now?: number;
  /** When a read of the page last failed because the server was unreachable (epoch ms), if ever. */
  outageSeenAt?: number | null;
}

/** Whether a failed read says the server was unreachable (the typed client's or the run view's reason). */
export function isServerAbsence(error: unknown): boolean {
  if (!isRecord(error)) return false;
  if (error.reason === "server_unavailable") return true;
  return isRecord(error.info) && error.info.reason === "server_unavailable";
}

/**
 * Derives the indicator's state from the latest `/health` and `/cluster/info` probes. Health says
 * whether the server answers; cluster/info (which needs a valid token) says whether it accepts the
 * console's credentials and who it is. The state never claims more than is known: it is `checking`
 * while the newest health answer is older than {@link STALE_AFTER_MS}, or older than a read of the
 * page that found the server unreachable (the probes are then asked again at once).
 */
export function deriveConnection(
  health: ProbeResult | undefined,
  info: ProbeResult | undefined,
  evidence: ConnectionEvidence = {},
): ConnectionState {
  const state = probedConnection(health, info);
  if (state.status === "checking") return state;
  const answeredAt = health?.at ?? 0;
  const stale = evidence.now !== undefined && evidence.now - answeredAt > STALE_AFTER_MS;
  const contradicted =
    state.status !== "unreachable" && evidence.outageSeenAt != null && evidence.outageSeenAt > answeredAt;
  return stale || contradicted ? { ...state, status: "checking", latencyMs: null, reason: null } : state;
}

function probedConnection(health: ProbeResult | undefined, info: ProbeResult | undefined): ConnectionState {
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
    const identity = clusterIdentity(info.body);
    if (identity) {
      base.version = identity.version ?? null;
      base.serverId = identity.server_id ?? null;
      base.defaultNamespace = identity.default_namespace ?? null;
    }
  }

  if (health?.kind !== "answered") return base;

  const healthBody = healthOf(health.body);
  if (health.status !== 200 || !healthBody || healthBody.status !== "serving") {
    return {
      ...base,
      status: "degraded",
      failingChecks: healthBody ? failingChecks(healthBody.checks) : [],
      reason: healthBody ? healthBody.status : reasonOf(health),
    };
  }

  if (info?.kind !== "answered") return base;
  if (info.status !== 200) return { ...base, status: "degraded", reason: reasonOf(info) };
  return { ...base, status: "connected" };
}

/** What the stale-data banner says: since when the server has not answered, and why. */
export interface StaleNotice {
  /** Epoch ms of the last probe that found the server answering; null if none did since the page opened. */
  since: number | null;
  reason: string;
}

/**
 * Whether the page's data is stale because the server stopped answering (issue 15: during an
 * outage every screen kept showing old numbers as if live). Only `unreachable` counts: a degraded
 * or unauthorized server still answers, and the screens say so themselves.
 */
export function staleNotice(state: ConnectionState, lastLiveAt: number | null): StaleNotice | null {
  if (state.status !== "unreachable") return null;
  return { since: lastLiveAt, reason: state.reason ?? "server_unavailable" };
}

/** The instant to remember as "last live": the latest answer while connected or degraded. */
export function liveAt(state: ConnectionState, previous: number | null): number | null {
  const live = state.status === "connected" || state.status === "degraded";
  return live && state.checkedAt !== null ? Math.max(state.checkedAt, previous ?? 0) : previous;
}
