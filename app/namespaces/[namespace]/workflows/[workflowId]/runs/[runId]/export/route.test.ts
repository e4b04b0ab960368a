import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { NextRequest } from "next/server";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
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
    if (req.url?.includes("/hostile")) {
      // A server (or a gateway) that echoes the ids it was given into its message.
      res
        .writeHead(404, { "content-type": "application/json" })
        .end(JSON.stringify({ reason: "run_not_found", message: `No run ${decodeURIComponent(req.url)} <b>here</b>` }));
      return;
    }
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

// Each download holds one of the person's stream places until its body ends (person-limits.ts), as a
// browser's does until it has read it; a test that looks only at the status ends the body here.
const answered: Response[] = [];
afterEach(async () => {
  for (const response of answered.splice(0)) if (!response.bodyUsed) await response.body?.cancel();
});

const PASSWORD_AUTH = {
  BREAKWATER_AUTH: "password",
  BREAKWATER_USERS_FILE: "/unused/users.json",
  BREAKWATER_SESSION_SECRET: "e".repeat(32),
};

interface Target {
  namespace?: string;
  workflowId?: string;
  runId?: string;
  headers?: Record<string, string>;
}

/** The route as a fresh process with this environment would run it. */
async function exportAs(env: Record<string, string>, person: Person | null, namespace = "default"): Promise<Response> {
  return exportOf(env, person, { namespace });
}

async function exportOf(env: Record<string, string>, person: Person | null, target: Target): Promise<Response> {
  const { namespace = "default", workflowId = "wf-1", runId = "run-1" } = target;
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
  const headers = forwardHeaders(new Headers({ host: "127.0.0.1:3000", ...target.headers }), person);
  const path = `/namespaces/${namespace}/workflows/${encodeURIComponent(workflowId)}/runs/${encodeURIComponent(runId)}/export`;
  const request = new NextRequest(`http://127.0.0.1:3000${path}`, { headers });
  // As Next passes them: the path's segments, still percent-encoded (routeParam decodes them).
  const response = await GET(request, {
    params: Promise.resolve({
      namespace,
      workflowId: encodeURIComponent(workflowId),
      runId: encodeURIComponent(runId),
    }),
  });
  answered.push(response);
  return response;
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

describe("history export errors", () => {
  const admin = { DW_ADMIN_TOKEN: TOKENS.admin };
  const NAVIGATION = { accept: "text/html,application/xhtml+xml;q=0.9,*/*;q=0.8" };
  const HOSTILE = { workflowId: `hostile<script>alert(1)</script>"'&`, runId: `r"><img src=x onerror=alert(2)>` };

  it("shows a navigation a page with the reason and a link back to the run, everything escaped; status kept", async () => {
    const response = await exportOf(admin, null, { ...HOSTILE, headers: NAVIGATION });
    expect(response.status).toBe(404);
    expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(response.headers.get("content-disposition")).toBeNull();
    const html = await response.text();
    expect(html).toContain("The Durable Workflow server does not know this run (HTTP 404).");
    expect(html).toContain('data-reason="run_not_found"');
    // The server's message is shown as text, never as markup.
    expect(html).toContain("&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39;&amp;");
    expect(html).toContain("&lt;b&gt;here&lt;/b&gt;");
    expect(html).not.toMatch(/<script|<img|<b>/);
    const href = /<a href="([^"]*)">Back to the run<\/a>/.exec(html)?.[1];
    expect(href).toBe(
      `/namespaces/default/workflows/${encodeURIComponent(HOSTILE.workflowId).replace(/'/g, "&#39;")}/runs/${encodeURIComponent(HOSTILE.runId)}`,
    );
  });

  it("treats a request that says it navigates (Sec-Fetch-Mode) as a navigation whatever its Accept", async () => {
    const response = await exportOf(admin, null, {
      ...HOSTILE,
      headers: { accept: "*/*", "sec-fetch-mode": "navigate" },
    });
    expect(response.status).toBe(404);
    expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
  });

  it("gives other clients the JSON error, as before", async () => {
    const response = await exportOf(admin, null, { ...HOSTILE, headers: { accept: "application/json" } });
    expect(response.status).toBe(404);
    expect(((await response.json()) as { reason: string }).reason).toBe("run_not_found");
  });

  it("answers 502 with a page when the server is down, and 502 JSON to a program", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const downUrl = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
    await new Promise((resolve) => closed.close(resolve));
    const down = { ...admin, DW_SERVER_URL: downUrl };
    const page = await exportOf(down, null, { headers: NAVIGATION });
    expect(page.status).toBe(502);
    expect(await page.text()).toContain("The Durable Workflow server could not be reached (HTTP 502).");
    const json = await exportOf(down, null, {});
    expect(json.status).toBe(502);
    expect(await json.json()).toMatchObject({ reason: "server_unavailable", httpStatus: 502 });
  });

  it("shows the person's locale on the page (German from Accept-Language)", async () => {
    const page = await exportOf(admin, null, { ...HOSTILE, headers: { ...NAVIGATION, "accept-language": "de-DE" } });
    expect(await page.text()).toContain('<html lang="de">');
  });
});
