import { describe, expect, it } from "vitest";
import { upstreamPattern } from "@/lib/server/metrics/upstream-pattern";
import { routeMatcher } from "@/lib/server/metrics/route-pattern";
import { scrapeAccess, tokenMatches } from "@/lib/server/metrics/scrape-access";

/** The metric labels are patterns, never ids: the number of series is bounded by the app's own routes and calls. */

describe("upstreamPattern", () => {
  it("names a declared read by the endpoint table's pattern, under a server URL with a path of its own", () => {
    expect(upstreamPattern("get", "/api/workflows/order-17/runs/01J9/history")).toBe(
      "GET /workflows/{workflowId}/runs/{runId}/history",
    );
    expect(upstreamPattern("GET", "/dw/api/workflows/x%2Fy/runs/r1")).toBe("GET /workflows/{workflowId}/runs/{runId}");
    expect(upstreamPattern("GET", "/api/health")).toBe("GET /health");
  });

  it("shapes a command's path the same way: ids and names become placeholders, verbs stay", () => {
    expect(upstreamPattern("POST", "/api/workflows/order-17/runs/01J9/signal/approve-now")).toBe(
      "POST /workflows/{workflowId}/runs/{runId}/signal/{signalName}",
    );
    expect(upstreamPattern("POST", "/api/workflows/order-17/terminate")).toBe("POST /workflows/{workflowId}/terminate");
    expect(upstreamPattern("DELETE", "/api/search-attributes/CustomerId")).toBe("DELETE /search-attributes/{name}");
  });

  it("turns a segment it cannot place and that is not a plain word into {id}", () => {
    expect(upstreamPattern("POST", "/api/system/Weird%20Thing/123")).toBe("POST /system/{id}/{id}");
  });
});

describe("routeMatcher", () => {
  const routeOf = routeMatcher({
    basePath: "/ops",
    staticRoutes: [{ page: "/api/healthz", regex: "^/api/healthz(?:/)?$" }],
    dynamicRoutes: [
      { page: "/api/dw/[...path]", regex: "^/api/dw/(.+?)(?:/)?$" },
      { page: "/namespaces/[namespace]/runs", regex: "^/namespaces/([^/]+?)/runs(?:/)?$" },
    ],
  });

  it("maps a path to the build's route, without its query or the base path", () => {
    expect(routeOf("/ops/namespaces/billing/runs?status=failed")).toBe("/namespaces/[namespace]/runs");
    expect(routeOf("/ops/api/dw/workflows/abc/runs/def/history?wait_new_event=1")).toBe("/api/dw/[...path]");
    expect(routeOf("/ops/api/healthz/")).toBe("/api/healthz");
    expect(routeOf("/ops/_next/static/chunks/abc.js")).toBe("/_next/static");
  });

  it("calls everything else `other`, however many different paths arrive", () => {
    expect(routeOf("/wp-admin/login.php")).toBe("other");
    expect(routeOf("/ops/no-such-page")).toBe("other");
    expect(routeMatcher({})("/anything")).toBe("other");
  });
});

describe("scrapeAccess", () => {
  const admin = (role: string | null, authorization?: string) =>
    new Headers({
      ...(role ? { "x-breakwater-user": "ana", "x-breakwater-role": role } : {}),
      ...(authorization ? { authorization } : {}),
    });

  it("lets the scrape token in, compared whole", () => {
    const token = "s3cret-scrape-token-0123456789";
    expect(scrapeAccess(admin(null, `Bearer ${token}`), { authMode: "password", token })).toEqual({ ok: true });
    expect(scrapeAccess(admin(null, `Bearer ${token}x`), { authMode: "password", token })).toMatchObject({
      ok: false,
      status: 401,
    });
    expect(tokenMatches("abc", "abc")).toBe(true);
    expect(tokenMatches("abc", "abcd")).toBe(false);
  });

  it("under console auth: an admin yes, anyone else no", () => {
    expect(scrapeAccess(admin("admin"), { authMode: "proxy", token: undefined })).toEqual({ ok: true });
    expect(scrapeAccess(admin("operator"), { authMode: "proxy", token: undefined })).toMatchObject({ status: 403 });
    expect(scrapeAccess(admin(null), { authMode: "password", token: undefined })).toMatchObject({ status: 401 });
  });

  it("without console auth (loopback only): open, unless a scrape token is set", () => {
    expect(scrapeAccess(admin(null), { authMode: "none", token: undefined })).toEqual({ ok: true });
    expect(scrapeAccess(admin(null), { authMode: "none", token: "t0ken-t0ken-t0ken" })).toMatchObject({ status: 401 });
  });
});
