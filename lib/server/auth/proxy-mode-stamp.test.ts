import { NextRequest } from "next/server";
import { beforeAll, describe, expect, it } from "vitest";
import { PEER_HEADER } from "./peer";
import { stampedHeaders } from "./peer-test-support";

/**
 * proxy.ts in proxy mode believes identity headers only on a request the peer stamp saw. `next start`
 * listens before instrumentation installs the stamp, so a request in that gap arrives with the
 * client's own X-Breakwater-Peer while the stamp already counts as installed: refused all the same.
 */

const identity = { "x-forwarded-user": "mallory", "x-forwarded-groups": "ops-admins", host: "localhost:3000" };
let proxy: (request: NextRequest) => Promise<Response>;

beforeAll(async () => {
  process.env.DW_TOKEN = "t";
  process.env.BREAKWATER_LOG_LEVEL = "silent";
  process.env.BREAKWATER_AUTH = "proxy";
  process.env.BREAKWATER_TRUSTED_PROXIES = "127.0.0.1";
  process.env.BREAKWATER_ROLE_GROUPS = "admin:ops-admins";
  ({ proxy } = await import("@/proxy"));
});

function asked(headers: Headers): Promise<Response> {
  return proxy(new NextRequest("http://localhost:3000/api/dw/cluster/info", { headers }));
}

describe("proxy-mode authentication and the peer stamp", () => {
  it("refuses identity headers on a request the stamp did not see, whatever peer it claims", async () => {
    await stampedHeaders(); // the stamp is installed, as it is once instrumentation has run
    const unstamped = await asked(new Headers({ ...identity, [PEER_HEADER]: "127.0.0.1" }));
    expect(unstamped.status).toBe(401);
    expect(await unstamped.json()).toMatchObject({ reason: "unauthenticated" });
  });

  it("believes them from the trusted proxy on a stamped request", async () => {
    const stamped = await stampedHeaders();
    for (const [name, value] of Object.entries(identity)) stamped.set(name, value);
    const answer = await asked(stamped);
    expect(answer.status).toBe(200);
    expect(answer.headers.get("x-middleware-next")).toBe("1");
  });
});
