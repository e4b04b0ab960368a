import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { NextRequest } from "next/server";
import { describe, expect, it } from "vitest";
import { withKikwiflowHost } from "@/lib/kikwiflow/engine-host-suite";
import type { KikwiflowClient } from "@/lib/kikwiflow";
import { sseData } from "@/lib/kikwiflow/sse";
import { FORWARDED_ROLE, FORWARDED_USER } from "@/lib/server/auth/principal";
import type { RelayLifetime, relayPulse } from "@/lib/server/kikwiflow/pulse-relay";

/**
 * The pulse relay (GET /api/kikwiflow/definitions/{id}/pulse) against the REAL engine
 * (KIKWIFLOW_HOST_JAR; a missing jar fails the suite). The host's pulse interval is 1 s
 * (engines/kikwiflow-host application.yml), so a second frame comes from the engine's own stream.
 * Requests carry the verified person as proxy.ts forwards it: each person has a share of the relays.
 */

const CONSOLE = "http://console.test:3000";
type Handler = (request: NextRequest, context: { params: Promise<{ id: string }> }) => Promise<Response>;
let pulse: Handler;
let active: () => number;
let limit: number;
let fatalId: string;
let relay: { relayPulse: typeof relayPulse };
let client: KikwiflowClient;

withKikwiflowHost(async ({ host, kiki }) => {
  process.env.KIKWIFLOW_URL = host.baseUrl;
  process.env.DW_TOKEN = "adm-token";
  ({ GET: pulse } = await import("@/app/api/kikwiflow/definitions/[id]/pulse/route"));
  const relayModule = await import("@/lib/server/kikwiflow/pulse-relay");
  relay = relayModule;
  client = (await import("@/lib/server/kikwiflow/engine")).getKikwiflowClient()!;
  active = relayModule.activePulseRelays;
  limit = relayModule.PULSE_RELAY_LIMIT;
  fatalId = (await kiki.getProcessDefinitionByKey("kiki-fatal")).id;
});

function pulseRequest(id: string, user: string, controller: AbortController, method = "GET"): NextRequest {
  return new NextRequest(`${CONSOLE}/api/kikwiflow/definitions/${id}/pulse`, {
    method,
    headers: { host: "console.test:3000", [FORWARDED_USER]: user, [FORWARDED_ROLE]: "viewer" },
    signal: controller.signal,
  });
}

function open(id: string, { user = "ada", controller = new AbortController() } = {}) {
  const request = pulseRequest(id, user, controller);
  return { controller, answer: pulse(request, { params: Promise.resolve({ id }) }) };
}

/** A lifetime the test ends by hand: no timer, no waiting. */
function handLifetime(): { lifetime: RelayLifetime; end: () => void } {
  let ending: (() => void) | null = null;
  return {
    lifetime: (end) => {
      ending = end;
      return () => (ending = null);
    },
    end: () => ending?.(),
  };
}

async function until(what: string, check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what} (${active()} relays active)`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe("pulse relay on the real engine", () => {
  it("relays validated snapshots as SSE frames, then releases its slot when the browser leaves", async () => {
    const { controller, answer } = open(fatalId);
    const response = await answer;
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
    expect(active()).toBe(1);
    const frames = sseData(response.body!);
    const started = Date.now();
    const first = JSON.parse((await frames.next()).value as string) as Record<string, unknown>;
    expect(first).toMatchObject({ id: fatalId, key: "kiki-fatal" });
    expect(first.flowNodes).toMatchObject({ POST_LEDGER: { metrics: { running: expect.any(Number) } } });
    // The second frame is the engine's stream, re-encoded (the first is the plain snapshot).
    const second = JSON.parse((await frames.next()).value as string) as Record<string, unknown>;
    expect(second).toMatchObject({ id: fatalId });
    expect(Date.now() - started).toBeLessThan(5_000);
    controller.abort();
    await until("the slot to be released", () => active() === 0);
  }, 20_000);

  it("still releases its slot when the browser leaves after the request object was garbage-collected", async () => {
    // A Request's signal follows the one it was built with through a weak reference: without the
    // relay holding the request, this abort never reached it (undici 6.24, Node 20.20).
    setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc") as () => void;
    const { controller, answer } = open(fatalId);
    const response = await answer;
    expect(response.status).toBe(200);
    for (let i = 0; i < 5; i++) gc();
    await new Promise((resolve) => setTimeout(resolve, 50));
    gc();
    controller.abort();
    await until("the slot to be released", () => active() === 0, 5_000);
    await response.body?.cancel().catch(() => undefined);
  }, 20_000);

  it("answers a HEAD with the stream's headers and no body, opening no relay", async () => {
    // Next answers HEAD with the GET handler and never cancels the body: a relay opened for it would
    // hold its slot and the person's share until the lifetime ends.
    const request = pulseRequest(fatalId, "hedy", new AbortController(), "HEAD");
    const response = await pulse(request, { params: Promise.resolve({ id: fatalId }) });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
    expect(response.body).toBeNull();
    expect(active()).toBe(0);
  });

  it("answers 404 for an unknown definition at once, without holding a slot", async () => {
    const started = Date.now();
    const response = await open("no-such-definition").answer;
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({
      reason: "not_found",
      message: "The engine has no process definition with this id.",
    });
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(active()).toBe(0);
  });

  it(`refuses the relay after the limit with a 503, and takes one again once a slot is free`, async () => {
    // Four people with four relays each: every slot taken without anyone going over their share.
    const opened = await Promise.all(
      Array.from({ length: limit }, (_, i) => open(fatalId, { user: `person-${i % 4}` })).map(async (o) => ({
        controller: o.controller,
        response: await o.answer,
      })),
    );
    expect(opened.map((o) => o.response.status)).toEqual(Array(limit).fill(200));
    expect(active()).toBe(limit);
    const refused = await open(fatalId, { user: "latecomer" }).answer;
    expect(refused.status).toBe(503);
    expect(refused.headers.get("retry-after")).toBe("15");
    expect(await refused.json()).toMatchObject({ reason: "relay_busy", message: expect.stringContaining(`${limit}`) });
    opened[0]!.controller.abort();
    await until("one slot free", () => active() === limit - 1);
    const again = open(fatalId, { user: "person-0" });
    expect((await again.answer).status).toBe(200);
    for (const o of [...opened.slice(1), again]) o.controller.abort();
    await until("every slot free", () => active() === 0);
  }, 30_000);
});

describe("pulse relay fairness on the real engine", () => {
  it("gives one person at most their share (429 beyond it), so a second person still gets a stream", async () => {
    const mine = await Promise.all(
      Array.from({ length: 4 }, () => open(fatalId, { user: "mallory" })).map(async (o) => ({
        controller: o.controller,
        response: await o.answer,
      })),
    );
    expect(mine.map((o) => o.response.status)).toEqual([200, 200, 200, 200]);
    const fifth = await open(fatalId, { user: "mallory" }).answer;
    expect(fifth.status).toBe(429);
    expect(fifth.headers.get("retry-after")).toBe("15");
    expect(await fifth.json()).toMatchObject({
      reason: "too_many_in_flight",
      message: expect.stringContaining("4 live pulse views"),
      httpStatus: 429,
    });
    expect(active()).toBe(4);

    const other = open(fatalId, { user: "ada" });
    const theirs = await other.answer;
    expect(theirs.status).toBe(200);
    const frame = JSON.parse((await sseData(theirs.body!).next()).value as string) as Record<string, unknown>;
    expect(frame).toMatchObject({ id: fatalId });

    for (const o of [...mine, other]) o.controller.abort();
    await until("every slot free", () => active() === 0);
    // The browser left: the person's share is theirs again.
    const back = open(fatalId, { user: "mallory" });
    expect((await back.answer).status).toBe(200);
    back.controller.abort();
    await until("every slot free", () => active() === 0);
  }, 30_000);

  it("ends a relay cleanly when its lifetime is over, and frees its slot", async () => {
    const { lifetime, end } = handLifetime();
    const controller = new AbortController();
    const response = await relay.relayPulse(client, fatalId, pulseRequest(fatalId, "ada", controller), "engine", {
      person: "user:ada",
      perPerson: 4,
      lifetime,
    });
    expect(response.status).toBe(200);
    const frames = sseData(response.body!);
    expect((await frames.next()).done).toBe(false);
    expect(active()).toBe(1);
    end();
    // A clean end (done), not an error: the browser reopens it at once (components/kikwiflow/use-pulse.ts).
    let next = await frames.next();
    while (!next.done) next = await frames.next();
    await until("the slot to be released", () => active() === 0);
  }, 20_000);
});
