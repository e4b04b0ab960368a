import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import bcrypt from "bcryptjs";
import { NextRequest } from "next/server";
import { beforeAll, describe, expect, it } from "vitest";
import { stampedHeaders } from "./peer-test-support";

/**
 * proxy.ts under a sub-path (docs/deployment.md): Next strips the basePath from `nextUrl.pathname`,
 * so the sign-in redirect must put it back (a `new URL("/login", request.url)` went to the host's root),
 * and `next` names the console path without it (the sign-in handler adds it again).
 */

const BASE = "/ops/breakwater";
let proxy: (request: NextRequest) => Promise<Response>;

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), "bw-base-path-"));
  writeFileSync(
    join(dir, "users.json"),
    JSON.stringify([{ user: "ada", hash: bcrypt.hashSync("pw", 4), role: "admin" }]),
  );
  process.env.DW_TOKEN = "t";
  process.env.BREAKWATER_LOG_LEVEL = "silent";
  process.env.BREAKWATER_AUTH = "password";
  process.env.BREAKWATER_USERS_FILE = join(dir, "users.json");
  process.env.BREAKWATER_SESSION_SECRET = "base-path-test-secret-0123456789abcdef";
  ({ proxy } = await import("@/proxy"));
});

async function asked(url: string, basePath: string): Promise<Response> {
  const headers = await stampedHeaders({ host: "localhost:3000" });
  return proxy(new NextRequest(url, { headers, nextConfig: { basePath } }));
}

describe("the sign-in redirect under a sub-path", () => {
  it("stays under the sub-path and remembers the page without it", async () => {
    const answer = await asked(`http://localhost:3000${BASE}/namespaces/default/runs?status=failed`, BASE);
    expect(answer.status).toBe(303);
    const location = new URL(answer.headers.get("location") ?? "");
    expect(location.pathname).toBe(`${BASE}/login`);
    expect(location.searchParams.get("next")).toBe("/namespaces/default/runs?status=failed");
  });

  it("is /login at the root, as before", async () => {
    const answer = await asked("http://localhost:3000/namespaces/default/runs", "");
    expect(new URL(answer.headers.get("location") ?? "").pathname).toBe("/login");
  });
});
