import { NextRequest } from "next/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FORWARDED_ROLE, FORWARDED_USER } from "@/lib/server/auth/principal";
import { systemClock } from "@/server/clock";
import { startEmbeddedServer, tokenAuth } from "@/server/http/test-support";
import type { EmbeddedServer } from "@/server/http/test-support";

/**
 * One person's flood through the read proxy (`GET /api/dw/…`, as Next runs it, against the embedded
 * server): it gets 429s beyond its BREAKWATER_READS_PER_PERSON places while another person's read is
 * answered, and its places come back once its answers are read. Counts only, no timings: every
 * request of the flood is admitted or refused before any upstream answer can arrive.
 */

const FLOOD = 300;
const READS_PER_PERSON = 16;

let server: EmbeddedServer;
type Handler = (request: NextRequest, context: { params: Promise<{ path: string[] }> }) => Promise<Response>;
let read: Handler;

beforeAll(async () => {
  server = await startEmbeddedServer({ clock: systemClock, auth: tokenAuth({ DW_ADMIN_TOKEN: "adm-token" }) });
  process.env.DW_SERVER_URL = server.url;
  process.env.DW_TOKEN = "adm-token";
  process.env.BREAKWATER_LOG_LEVEL = "silent";
  read = (await import("@/app/api/dw/[...path]/route")).GET;
});

afterAll(() => server.close());

function clusterInfo(user: string, method = "GET"): Promise<Response> {
  // The verified person as proxy.ts forwards it (it deletes any client-sent copy first).
  const request = new NextRequest("http://console.test/api/dw/cluster/info", {
    method,
    headers: { [FORWARDED_USER]: user, [FORWARDED_ROLE]: "viewer" },
  });
  return read(request, { params: Promise.resolve({ path: ["cluster", "info"] }) });
}

describe("the read proxy under one person's flood", () => {
  it("refuses the flooder beyond its places with 429 and Retry-After, and answers another person", async () => {
    const flood = Array.from({ length: FLOOD }, () => clusterInfo("mallory"));
    const other = clusterInfo("ada");
    const answers = await Promise.all(flood);
    const refused = answers.filter((answer) => answer.status === 429);
    expect(answers.filter((answer) => answer.status === 200)).toHaveLength(READS_PER_PERSON);
    expect(refused).toHaveLength(FLOOD - READS_PER_PERSON);
    expect(refused.every((answer) => answer.headers.get("retry-after") === "1")).toBe(true);
    expect(await refused[0]!.json()).toMatchObject({ reason: "too_many_in_flight", httpStatus: 429 });

    const ada = await other;
    expect(ada.status).toBe(200);
    expect(await ada.json()).toHaveProperty("server_id");

    // The admitted answers hold their places until read; then the flooder may read again.
    expect((await clusterInfo("mallory")).status).toBe(429);
    await Promise.all(answers.filter((answer) => !answer.bodyUsed).map((answer) => answer.text()));
    expect((await clusterInfo("mallory")).status).toBe(200);
  }, 30_000);
});

describe("HEAD through the read proxy", () => {
  // Next answers HEAD with the GET handler and never reads or cancels the body it returns, so a
  // place held until the body ends would be held forever (curl -I, 16 times, and every read is 429).
  it("answers without a body and gives the place back at once, so a GET after more HEADs than places is served", async () => {
    for (let i = 0; i <= READS_PER_PERSON; i++) {
      const head = await clusterInfo("hedy", "HEAD");
      expect(head.status).toBe(200);
      expect(head.body).toBeNull();
    }
    const get = await clusterInfo("hedy");
    expect(get.status).toBe(200);
    expect(await get.json()).toHaveProperty("server_id");
  });
});
