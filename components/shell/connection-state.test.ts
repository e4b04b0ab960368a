import { describe, expect, it } from "vitest";
import {
  deriveConnection,
  isServerAbsence,
  liveAt,
  STALE_AFTER_MS,
  staleNotice,
} from "@/components/shell/connection-state";
import type { ProbeResult } from "@/components/shell/connection-state";
import { probeBody } from "@/lib/queries/connection";
import clusterInfoFixture from "@/contracts/fixtures/2026-08/cluster-info.json";
import healthFixture from "@/contracts/fixtures/2026-08/health.json";

const answer = (status: number, body: unknown, at = 1_000, latencyMs = 12): ProbeResult => ({
  kind: "answered",
  status,
  body,
  latencyMs,
  at,
});

const serving = answer(200, { status: "serving", timestamp: "2026-04-13T12:00:00+00:00", checks: { database: "ok" } });
const info = answer(
  200,
  { server_id: "dw-1", version: "2.0.0", default_namespace: "default", capabilities: {} },
  2_000,
);

describe("deriveConnection", () => {
  it("is checking before any probe answered", () => {
    expect(deriveConnection(undefined, undefined)).toMatchObject({ status: "checking", checkedAt: null });
  });

  it("is checking while only health has answered", () => {
    expect(deriveConnection(serving, undefined).status).toBe("checking");
  });

  it("is connected with the server's identity when both probes succeed", () => {
    expect(deriveConnection(serving, info)).toEqual({
      status: "connected",
      version: "2.0.0",
      serverId: "dw-1",
      defaultNamespace: "default",
      latencyMs: 12,
      checkedAt: 2_000,
      failingChecks: [],
      reason: null,
    });
  });

  it("is unreachable when the proxy reports the server down or slow", () => {
    const down = answer(502, { reason: "server_unavailable", message: "…" });
    expect(deriveConnection(down, undefined)).toMatchObject({
      status: "unreachable",
      reason: "server_unavailable",
      latencyMs: null,
    });
    const slow = answer(504, { reason: "server_timeout", message: "…" });
    expect(deriveConnection(serving, slow)).toMatchObject({ status: "unreachable", reason: "server_timeout" });
  });

  it("is unreachable when the console itself cannot be reached", () => {
    const failed: ProbeResult = { kind: "failed", message: "Failed to fetch", at: 5 };
    expect(deriveConnection(failed, failed)).toMatchObject({ status: "unreachable", reason: "console_unreachable" });
  });

  it("does not mistake an upstream 502 without the proxy's reason for the proxy's own", () => {
    const upstream502 = answer(502, { message: "Bad gateway from a load balancer" });
    expect(deriveConnection(upstream502, info)).toMatchObject({ status: "degraded", reason: "http_502" });
  });

  it("is unauthorized when cluster/info refuses the credentials, even though health answers", () => {
    const refused = answer(401, { reason: "unauthorized", message: "Invalid or missing authentication token." });
    expect(deriveConnection(serving, refused)).toMatchObject({ status: "unauthorized", reason: "unauthorized" });
    const forbidden = answer(403, { reason: "forbidden", role: "worker", allowed_roles: ["admin"] });
    expect(deriveConnection(serving, forbidden).status).toBe("unauthorized");
  });

  it("is degraded with the failing checks when health reports them", () => {
    const degraded = answer(503, { status: "degraded", checks: { database: "unavailable", cache: "ok" } });
    expect(deriveConnection(degraded, info)).toMatchObject({
      status: "degraded",
      failingChecks: ["database"],
      reason: "degraded",
      version: "2.0.0",
    });
  });

  it("is degraded when the address does not speak the Durable Workflow API", () => {
    expect(deriveConnection(serving, answer(404, { message: "Not Found" }))).toMatchObject({
      status: "degraded",
      reason: "http_404",
    });
    expect(deriveConnection(answer(200, "<html>"), undefined)).toMatchObject({
      status: "degraded",
      reason: "http_200",
    });
    const malformed = answer(502, { reason: "malformed_response", message: "…", issue_path: "$.status" });
    expect(deriveConnection(malformed, info)).toMatchObject({
      status: "degraded",
      reason: "malformed_response",
      latencyMs: 12,
    });
  });
});

describe("deriveConnection never claims what it does not know (issue 37)", () => {
  it("is checking, not connected, once a read of the page found the server unreachable after the last probe", () => {
    // The runs list's refresh failed at 2,500 while the probes last answered at 1,000 and 2,000.
    expect(deriveConnection(serving, info, { outageSeenAt: 2_500 })).toMatchObject({
      status: "checking",
      latencyMs: null,
    });
    // The probes asked again at once decide: down…
    const down = answer(502, { reason: "server_unavailable" }, 2_600);
    expect(deriveConnection(down, info, { outageSeenAt: 2_500 }).status).toBe("unreachable");
    // …or up again, if the server came back meanwhile.
    const back = answer(200, serving.kind === "answered" ? serving.body : null, 2_700);
    expect(deriveConnection(back, info, { outageSeenAt: 2_500 }).status).toBe("connected");
  });

  it("a page failure older than the last probe changes nothing", () => {
    expect(deriveConnection(serving, info, { outageSeenAt: 900 }).status).toBe("connected");
  });

  it("is checking when the last health answer is too old to describe now", () => {
    expect(deriveConnection(serving, info, { now: 1_000 + STALE_AFTER_MS }).status).toBe("connected");
    expect(deriveConnection(serving, info, { now: 1_001 + STALE_AFTER_MS })).toMatchObject({
      status: "checking",
      version: "2.0.0",
    });
    const down = answer(502, { reason: "server_unavailable" }, 1_000);
    expect(deriveConnection(down, info, { now: 1_001 + STALE_AFTER_MS }).status).toBe("checking");
  });

  it("recognises the server's absence in the typed client's errors and the run view's", () => {
    expect(isServerAbsence({ reason: "server_unavailable", message: "…" })).toBe(true);
    expect(isServerAbsence({ info: { reason: "server_unavailable" } })).toBe(true);
    expect(isServerAbsence({ reason: "run_not_found" })).toBe(false);
    expect(isServerAbsence(new Error("boom"))).toBe(false);
    expect(isServerAbsence(null)).toBe(false);
  });
});

describe("staleNotice", () => {
  const down = answer(502, { reason: "server_unavailable" }, 9_000);
  it("says nothing while the server answers, even degraded", () => {
    const connected = deriveConnection(serving, info);
    expect(staleNotice(connected, 2_000)).toBeNull();
    expect(liveAt(connected, null)).toBe(2_000);
  });

  it("names the last live instant and the reason once the server is unreachable", () => {
    const state = deriveConnection(down, info);
    expect(state.status).toBe("unreachable");
    expect(staleNotice(state, 2_000)).toEqual({ since: 2_000, reason: "server_unavailable" });
    // An unreachable answer never moves the last live instant forward.
    expect(liveAt(state, 2_000)).toBe(2_000);
  });

  it("has no 'since' when the server never answered while the page was open", () => {
    expect(staleNotice(deriveConnection(down, undefined), null)).toEqual({ since: null, reason: "server_unavailable" });
  });
});

describe("probeBody", () => {
  it("keeps what the indicator reads, so a trimmed answer derives the same state", () => {
    const full = deriveConnection(answer(200, healthFixture), answer(200, clusterInfoFixture, 2_000));
    const trimmed = deriveConnection(
      answer(200, probeBody(healthFixture)),
      answer(200, probeBody(clusterInfoFixture), 2_000),
    );
    expect(trimmed).toEqual(full);
    expect(full.version).toBe("2.0.0");
    expect(probeBody(clusterInfoFixture)).toEqual({
      server_id: "dw-server-1",
      version: "2.0.0",
      default_namespace: "default",
    });
  });

  it("keeps an error's reason and passes non-objects through", () => {
    const refused = { reason: "server_unavailable", message: "The server did not answer.", httpStatus: 502 };
    expect(probeBody(refused)).toEqual({ reason: "server_unavailable" });
    expect(deriveConnection(answer(502, probeBody(refused)), undefined)).toEqual(
      deriveConnection(answer(502, refused), undefined),
    );
    expect(probeBody(null)).toBeNull();
    expect(probeBody("text")).toBe("text");
  });
});
