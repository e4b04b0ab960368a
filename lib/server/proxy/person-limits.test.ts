import { beforeAll, describe, expect, it } from "vitest";
import { FORWARDED_ROLE, FORWARDED_USER } from "../auth/principal";
import type { Lease } from "./person-limits";
import { MemoryInFlightLimiter, personKey, releasedAtEnd, tooManyInFlight, withPersonLimit } from "./person-limits";
import { parseConfig } from "../process/config";

/** The per-person in-flight limits (docs/decisions/0044): the counter, the 429, and when a place is given back. */

beforeAll(() => {
  process.env.DW_TOKEN = "t";
  process.env.BREAKWATER_READS_PER_PERSON = "2";
  process.env.BREAKWATER_LOG_LEVEL = "silent";
});

function countingLease(): Lease & { releases: number } {
  const lease = {
    releases: 0,
    release() {
      lease.releases += 1;
    },
  };
  return lease;
}

function streamOf(chunks: string[], { fail = false } = {}): ReadableStream<Uint8Array> {
  let i = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      const chunk = chunks[i++];
      if (chunk !== undefined) controller.enqueue(new TextEncoder().encode(chunk));
      else if (fail) controller.error(new Error("upstream broke"));
      else controller.close();
    },
  });
}

function asPerson(user: string | null, controller = new AbortController()): Request {
  const headers: Record<string, string> = user === null ? {} : { [FORWARDED_USER]: user, [FORWARDED_ROLE]: "viewer" };
  return new Request("http://console.test/api/dw/workflows", { headers, signal: controller.signal });
}

describe("the in-memory in-flight counter", () => {
  it("bounds each person in each pool on their own, and a place comes back once however often it is released", async () => {
    const limiter = new MemoryInFlightLimiter();
    const first = await limiter.acquire("reads", "user:mallory", 2);
    const second = await limiter.acquire("reads", "user:mallory", 2);
    expect(first).not.toBeNull();
    expect(second).not.toBeNull();
    expect(await limiter.acquire("reads", "user:mallory", 2)).toBeNull();
    // Another person, and the same person's other pool, are untouched.
    expect(await limiter.acquire("reads", "user:ada", 2)).not.toBeNull();
    expect(await limiter.acquire("streams", "user:mallory", 2)).not.toBeNull();
    first?.release();
    first?.release();
    expect(limiter.held("reads", "user:mallory")).toBe(1);
    expect(await limiter.acquire("reads", "user:mallory", 2)).not.toBeNull();
    expect(await limiter.acquire("reads", "user:mallory", 2)).toBeNull();
  });
});

describe("the refusal", () => {
  it("is a 429 in the console's error envelope, with Retry-After and what to do", async () => {
    const response = tooManyInFlight("reads", 16);
    expect(response.status).toBe(429);
    expect(response.headers.get("retry-after")).toBe("1");
    expect(await response.json()).toEqual({
      reason: "too_many_in_flight",
      message:
        "You have 16 console reads in flight already; close some of them (other tabs, scripts) or try again in 1 s.",
      httpStatus: 429,
    });
    expect(tooManyInFlight("streams", 4).headers.get("retry-after")).toBe("5");
  });
});

describe("who a place counts for", () => {
  const config = parseConfig({ DW_TOKEN: "t" });

  it("is the person proxy.ts verified; with console auth off, the client's address", () => {
    expect(personKey(config, asPerson("ada").headers)).toBe("user:ada");
    // No peer stamp in this process: the address is unknown, one bucket for every unverified caller.
    expect(personKey(config, asPerson(null).headers)).toBe("address:unknown");
  });
});

describe("a place held for an answer", () => {
  it("is given back when the body has been read to its end, and not before", async () => {
    const lease = countingLease();
    const response = releasedAtEnd(new Response(streamOf(["a", "b"])), asPerson("ada"), lease);
    const reader = response.body!.getReader();
    await reader.read();
    expect(lease.releases).toBe(0);
    await reader.read();
    expect((await reader.read()).done).toBe(true);
    expect(lease.releases).toBe(1);
  });

  it("is given back when the reader cancels (the browser left)", async () => {
    const lease = countingLease();
    const response = releasedAtEnd(new Response(streamOf(["a", "b", "c"])), asPerson("ada"), lease);
    const reader = response.body!.getReader();
    await reader.read();
    await reader.cancel();
    expect(lease.releases).toBe(1);
  });

  it("is given back when the request is aborted mid-stream, and the source is cancelled with it", async () => {
    const lease = countingLease();
    const controller = new AbortController();
    let cancelled = false;
    const source = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(new Uint8Array([1]));
      },
      cancel() {
        cancelled = true;
      },
    });
    const response = releasedAtEnd(new Response(source), asPerson("ada", controller), lease);
    await response.body!.getReader().read();
    expect(lease.releases).toBe(0);
    controller.abort();
    expect(lease.releases).toBe(1);
    await Promise.resolve();
    expect(cancelled).toBe(true);
  });

  it("is given back when the body fails, and at once for an answer without a body", async () => {
    const lease = countingLease();
    const failing = releasedAtEnd(new Response(streamOf(["a"], { fail: true })), asPerson("ada"), lease);
    await expect(failing.text()).rejects.toThrow("upstream broke");
    expect(lease.releases).toBe(1);
    const empty = countingLease();
    const noBody = releasedAtEnd(
      new Response(null, { status: 204, headers: { "x-kept": "1" } }),
      asPerson("ada"),
      empty,
    );
    expect(empty.releases).toBe(1);
    expect(noBody.status).toBe(204);
    expect(noBody.headers.get("x-kept")).toBe("1");
  });

  it("keeps the answer's status and headers", async () => {
    const response = releasedAtEnd(
      new Response("nope", { status: 404, headers: { "content-type": "text/plain", "x-kept": "1" } }),
      asPerson("ada"),
      countingLease(),
    );
    expect(response.status).toBe(404);
    expect(response.headers.get("x-kept")).toBe("1");
    expect(await response.text()).toBe("nope");
  });
});

describe("withPersonLimit", () => {
  it("answers 429 beyond BREAKWATER_READS_PER_PERSON in flight, serves another person meanwhile, and frees the place at the answer's end", async () => {
    const gates: (() => void)[] = [];
    const slow = () => new Promise<Response>((resolve) => gates.push(() => resolve(new Response(streamOf(["done"])))));
    const held = [
      withPersonLimit(asPerson("mallory"), "reads", slow),
      withPersonLimit(asPerson("mallory"), "reads", slow),
    ];
    const refused = await withPersonLimit(asPerson("mallory"), "reads", slow);
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("1");

    const other = await withPersonLimit(asPerson("ada"), "reads", () => Promise.resolve(new Response("ada's")));
    expect(await other.text()).toBe("ada's");

    for (const open of gates) open();
    const answers = await Promise.all(held);
    // Answered but not yet read: the places are still held.
    expect((await withPersonLimit(asPerson("mallory"), "reads", slow)).status).toBe(429);
    await Promise.all(answers.map((answer) => answer.text()));
    const again = withPersonLimit(asPerson("mallory"), "reads", () => Promise.resolve(new Response("again")));
    expect(await (await again).text()).toBe("again");
  });

  it("gives the place back when the handler throws", async () => {
    for (let i = 0; i < 3; i++) {
      await expect(withPersonLimit(asPerson("vic"), "reads", () => Promise.reject(new Error("boom")))).rejects.toThrow(
        "boom",
      );
    }
    expect((await withPersonLimit(asPerson("vic"), "reads", () => Promise.resolve(new Response("ok")))).status).toBe(
      200,
    );
  });
});
