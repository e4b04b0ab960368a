import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { AuthConfig } from "../auth";
import type { CpHarness } from "../control-plane/test-support";
import { startCpHarness } from "../control-plane/test-support";
import { ALL_ENDPOINTS, fillPath } from "./endpoints";
import type { Endpoint } from "./endpoints";
import { CP_HEADERS, expectCpError, expectWorkerError, propertyParams, rawRequest, WORKER_HEADERS } from "./raw-client";

/**
 * Forged credentials on every route with token auth on: any Authorization header that is not a
 * configured token is 401 `unauthorized`, and a real token of the wrong role 403 `forbidden`,
 * before version or namespace checks (server-api.md §1.2–1.3) and in the plane's envelope.
 */
const TOKENS = { worker: "w-secret-token", operator: "o-secret-token", admin: "a-secret-token" } as const;
const auth: AuthConfig = { driver: "token", tokens: { ...TOKENS, legacy: null }, backwardCompatible: true };

let h: CpHarness;
beforeAll(async () => {
  h = await startCpHarness({ auth });
});
afterAll(async () => {
  await h.close();
});

const guarded = ALL_ENDPOINTS.filter((e) => !e.open);

function request(ep: Endpoint, headers: Record<string, string>) {
  const base = ep.plane === "worker" ? WORKER_HEADERS : { ...CP_HEADERS, "content-type": "application/json" };
  return rawRequest(h.url, {
    method: ep.method,
    path: fillPath(ep.path, { id: "x", runId: "r", name: "n", ns: "default", workerId: "w" }),
    headers: { ...base, ...headers },
    body: ep.method === "POST" ? "{}" : undefined,
  });
}

describe("forged credentials", () => {
  test("any Authorization value that is not a configured token is 401 on every guarded route", async () => {
    const printable = fc.string({ unit: "grapheme-ascii", maxLength: 40 });
    const forged = fc
      .oneof(
        printable,
        printable.map((t) => `Bearer ${t}`),
        fc
          .constantFrom(...Object.values(TOKENS))
          .chain((t) =>
            fc.constantFrom(
              t,
              `Basic ${t}`,
              `Bearer ${t.slice(0, -1)}`,
              `Bearer ${t}x`,
              `Bearer ${t.toUpperCase()}`,
              `Token ${t}`,
            ),
          ),
      )
      .filter((v) => !Object.values(TOKENS).some((t) => new RegExp(`^\\s*bearer\\s+${t}\\s*$`, "i").test(v)));
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...guarded), forged, async (ep, value) => {
        const res = await request(ep, { authorization: value });
        const ctx = `${ep.method} ${ep.path} authorization ${JSON.stringify(value)}`;
        const body =
          ep.plane === "worker" ? expectWorkerError(res, ctx) : expectCpError(res, ctx, { operation: ep.operation });
        expect([res.status, body.reason], ctx).toEqual([401, "unauthorized"]);
      }),
      propertyParams(100),
    );
  });

  test("a valid token of the wrong role is 403 with the caller's role, ahead of version and namespace checks", async () => {
    for (const ep of guarded) {
      const wrongRole = ep.plane === "worker" ? "operator" : ep.path.startsWith("/api/cluster") ? null : "worker";
      if (!wrongRole) continue;
      const headers = {
        authorization: `Bearer ${TOKENS[wrongRole]}`,
        "x-namespace": "ghost",
        "x-durable-workflow-control-plane-version": "9",
        "x-durable-workflow-protocol-version": "9",
      };
      const res = await request(ep, headers);
      const body =
        ep.plane === "worker"
          ? expectWorkerError(res, ep.path)
          : expectCpError(res, ep.path, { operation: ep.operation });
      expect([res.status, body.reason, body.role], ep.path).toEqual([403, "forbidden", wrongRole]);
    }
  });
});
