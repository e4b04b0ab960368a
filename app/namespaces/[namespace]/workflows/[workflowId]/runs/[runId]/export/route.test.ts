import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { NextRequest } from "next/server";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { forwardHeaders } from "@/lib/server/auth/principal";
import type { Person } from "@/lib/server/auth/principal";

/**
 * "Download history export" against a recording upstream on 127.0.0.1: which token went out for each
 * person. It used to be the process-wide token (DW_ADMIN_TOKEN first) for everyone, so a viewer's
 * export carried the admin token, and with only DW_ADMIN_TOKEN set a viewer refused everywhere else
 * downloaded the full bundle.
 */

// A recorded bundle, so the read proxy's contract check passes and the bytes are relayed.
const BUNDLE = readFileSync("lib/dw/fixtures/history-export.json", "utf8");
const TOKENS = { admin: "admin-token-x", operator: "operator-token-x" };
let upstream: Server;
let baseUrl = "";
const seen: (string | null)[] = [];
const namespaces: (string | undefined)[] = [];

beforeAll(async () => {
  upstream = createServer((req, res) => {
    const auth = req.headers.authorization ?? null;
    seen.push(auth);
    namespaces.push(req.headers["x-namespace"] as string | undefined);
    // As the DW server: no token → 401; a known token → the bundle.
    if (auth !== `Bearer ${TOKENS.admin}` && auth !== `Bearer ${TOKENS.operator}`) {
      res
        .writeHead(401, { "content-type": "application/json" })
        .end(JSON.stringify({ reason: "unauthorized", message: "Invalid or missing authentication token." }));
      return;
    }
    res.writeHead(200, { "content-type": "application/json" }).end(BUNDLE);
  });
  await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => upstream.close(resolve));
});

beforeEach(() => {
  seen.length = 0;
  vi.resetModules();
});

const PASSWORD_AUTH = {
  BREAKWATER_AUTH: "password",
  BREAKWATER_USERS_FILE: "/unused/users.json",
  BREAKWATER_SESSION_SECRET: "e".repeat(32),
};

/** The route as a fresh process with this environment would run it. */
async function exportAs(env: Record<string, string>, person: Person | null, namespace = "default"): Promise<Response> {
  for (const name of [
    "DW_TOKEN",
    "DW_ADMIN_TOKEN",
    "DW_OPERATOR_TOKEN",
    "BREAKWATER_AUTH",
    "BREAKWATER_USERS_FILE",
    "BREAKWATER_SESSION_SECRET",
  ])
    vi.stubEnv(name, "");
  vi.stubEnv("DW_SERVER_URL", baseUrl);
  for (const [name, value] of Object.entries(env)) vi.stubEnv(name, value);
  vi.doMock("@/lib/server/auth/users", async (original) => ({ ...(await original<object>()), loadUsers: () => [] }));
  const { GET } = await import("@/app/namespaces/[namespace]/workflows/[workflowId]/runs/[runId]/export/route");
  const headers = forwardHeaders(new Headers({ host: "127.0.0.1:3000" }), person);
  const request = new NextRequest(`http://127.0.0.1:3000/namespaces/${namespace}/workflows/wf-1/runs/run-1/export`, {
    headers,
  });
  return GET(request, { params: Promise.resolve({ namespace, workflowId: "wf-1", runId: "run-1" }) });
}

describe("history export token", () => {
  const both = { ...PASSWORD_AUTH, DW_ADMIN_TOKEN: TOKENS.admin, DW_OPERATOR_TOKEN: TOKENS.operator };

  it("sends each person's own token: the admin's for admins, the operator token for operators and viewers", async () => {
    for (const [role, token] of [
      ["admin", TOKENS.admin],
      ["operator", TOKENS.operator],
      ["viewer", TOKENS.operator],
    ] as const) {
      const response = await exportAs(both, { user: `${role}-1`, role });
      expect(response.status, role).toBe(200);
      expect(response.headers.get("content-disposition")).toContain("history-export-wf-1-run-1.json");
      expect(seen.at(-1), role).toBe(`Bearer ${token}`);
    }
    expect(seen).not.toContain(null);
  });

  it("refuses a viewer when only DW_ADMIN_TOKEN is configured, exactly like the read proxy", async () => {
    const adminOnly = { ...PASSWORD_AUTH, DW_ADMIN_TOKEN: TOKENS.admin };
    const viewer = await exportAs(adminOnly, { user: "vic", role: "viewer" });
    expect(viewer.status).toBe(401);
    expect(seen).toEqual([null]);
    const { GET: readProxy } = await import("@/app/api/dw/[...path]/route");
    const request = new NextRequest("http://127.0.0.1:3000/api/dw/workflows/wf-1/runs/run-1/history/export", {
      headers: forwardHeaders(new Headers({ "x-namespace": "default" }), { user: "vic", role: "viewer" }),
    });
    expect(
      (
        await readProxy(request, {
          params: Promise.resolve({ path: ["workflows", "wf-1", "runs", "run-1", "history", "export"] }),
        })
      ).status,
    ).toBe(401);
    expect(seen).toEqual([null, null]);
    const admin = await exportAs(adminOnly, { user: "ada", role: "admin" });
    expect(admin.status).toBe(200);
    expect(seen.at(-1)).toBe(`Bearer ${TOKENS.admin}`);
  });

  it("reads the namespace of its URL, and answers 404 to one that is not a namespace name", async () => {
    const response = await exportAs({ DW_ADMIN_TOKEN: TOKENS.admin }, null, "billing");
    expect(response.status).toBe(200);
    expect(namespaces.at(-1)).toBe("billing");
    const invalid = await exportAs({ DW_ADMIN_TOKEN: TOKENS.admin }, null, "no such");
    expect(invalid.status).toBe(404);
    expect(seen).toHaveLength(1);
  });

  it("sends the console's token without console auth", async () => {
    const response = await exportAs({ DW_ADMIN_TOKEN: TOKENS.admin }, null);
    expect(response.status).toBe(200);
    expect(seen).toEqual([`Bearer ${TOKENS.admin}`]);
  });
});
