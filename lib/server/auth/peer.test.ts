import { createServer, IncomingMessage, request, ServerResponse } from "node:http";
import { Socket } from "node:net";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import {
  FORWARDED_HEADERS,
  installPeerStamp,
  isLoopbackAddress,
  PEER_HEADER,
  peerStampInstalled,
  REPEATED_HEADER,
  requestsInFlightFrom,
  STAMP_HEADER,
  stampedPeer,
} from "./peer";
import { stampedHeaders } from "./peer-test-support";
import { parseTrustedProxies } from "./trusted-proxies";

/** A real HTTP server on 127.0.0.1: the stamp replaces whatever peer header the client sent. */

let server: ReturnType<typeof createServer>;
let port = 0;

beforeAll(async () => {
  installPeerStamp();
  server = createServer((req, res) => {
    res.end(
      JSON.stringify({
        peer: req.headers[PEER_HEADER],
        repeated: req.headers[REPEATED_HEADER],
        groups: req.headers["x-forwarded-groups"],
        forwarded: Object.fromEntries(
          FORWARDED_HEADERS.flatMap((name) => (name in req.headers ? [[name, req.headers[name]]] : [])),
        ),
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

interface Stamped {
  peer: string;
  repeated?: string;
  groups?: string;
  forwarded: Record<string, string>;
}

function proxiesOf(spec: string) {
  const parsed = parseTrustedProxies(spec);
  if ("problem" in parsed) throw new Error(parsed.problem);
  return parsed.proxies;
}

/** `string[]` values go out as that many separate header lines. */
function ask(headers: Record<string, string | string[]>): Promise<Stamped> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path: "/" }, (res) => {
      let body = "";
      res.on("data", (chunk: Buffer) => (body += chunk.toString()));
      res.on("end", () => resolve(JSON.parse(body) as Stamped));
    });
    for (const [name, value] of Object.entries(headers)) req.setHeader(name, value);
    req.on("error", reject);
    req.end();
  });
}

describe("peer stamp", () => {
  it("is installed once per process", () => {
    installPeerStamp();
    expect(peerStampInstalled()).toBe(true);
  });

  it("records the socket's address and overwrites a client-sent value", async () => {
    expect(await ask({})).toMatchObject({ peer: "127.0.0.1" });
    expect(await ask({ [PEER_HEADER]: "10.0.0.5", "x-forwarded-for": "10.0.0.5" })).toMatchObject({
      peer: "127.0.0.1",
    });
  });

  it("names headers sent more than once, which Node would otherwise join into one list", async () => {
    const twice = await ask({ "X-Forwarded-Groups": ["readers", "ops-admins"], "X-Forwarded-User": "vic" });
    expect(twice.groups).toBe("readers, ops-admins");
    expect(twice.repeated).toBe("x-forwarded-groups");
    // One header with a comma-separated list is one header; and a client cannot pre-fill the stamp.
    expect(await ask({ "X-Forwarded-Groups": "readers,ops-admins", [REPEATED_HEADER]: "nothing" })).toMatchObject({
      repeated: "",
    });
  });

  const spoofed = {
    Forwarded: "for=10.0.0.5;proto=https;host=evil.test",
    "X-Forwarded-Proto": "https",
    "X-Forwarded-Host": "evil.test",
    "X-Forwarded-Port": "443",
    "X-Forwarded-For": "10.0.0.5",
    "X-Forwarded-Prefix": "/evil",
    "X-Real-IP": "10.0.0.5",
  };

  it("deletes every forwarded header from a peer that is not a trusted proxy, and keeps identity headers for auth to judge", async () => {
    installPeerStamp({ trustedProxies: proxiesOf("10.9.9.9") });
    try {
      const answer = await ask({ ...spoofed, "X-Forwarded-Groups": "ops-admins" });
      expect(answer.forwarded).toEqual({});
      // Proxy-mode auth ignores an untrusted peer's identity headers itself, and logs it (principal.ts).
      expect(answer).toMatchObject({ peer: "127.0.0.1", groups: "ops-admins" });
    } finally {
      installPeerStamp();
    }
  });

  it("with no trusted proxies configured, trusts nobody's forwarded headers", async () => {
    expect((await ask(spoofed)).forwarded).toEqual({});
  });

  it("keeps a trusted proxy's forwarded headers as it sent them", async () => {
    installPeerStamp({ trustedProxies: proxiesOf("127.0.0.1,::1") });
    try {
      expect((await ask(spoofed)).forwarded).toEqual({
        forwarded: spoofed.Forwarded,
        "x-forwarded-proto": "https",
        "x-forwarded-host": "evil.test",
        "x-forwarded-port": "443",
        "x-forwarded-for": "10.0.0.5",
        "x-forwarded-prefix": "/evil",
        "x-real-ip": "10.0.0.5",
      });
    } finally {
      installPeerStamp();
    }
  });

  it("refuses a client's requests beyond its in-flight bound before the handler sees them, and frees a place when a response is sent or its connection drops", async () => {
    const pending: ServerResponse[] = [];
    const holder = createServer((_req, res) => void pending.push(res));
    await new Promise<void>((resolve) => holder.listen(0, "127.0.0.1", resolve));
    const holderPort = (holder.address() as AddressInfo).port;
    const get = () => {
      const req = request({ host: "127.0.0.1", port: holderPort, path: "/", agent: false });
      const answer = new Promise<{ status: number; retryAfter: unknown; body: string }>((resolve, reject) => {
        req.on("response", (res) => {
          let body = "";
          res.on("data", (chunk: Buffer) => (body += chunk.toString()));
          res.on("end", () => resolve({ status: res.statusCode ?? 0, retryAfter: res.headers["retry-after"], body }));
        });
        req.on("error", reject);
      });
      req.end();
      return { req, answer };
    };
    const until = async (check: () => boolean) => {
      while (!check()) await new Promise((resolve) => setImmediate(resolve));
    };
    installPeerStamp({ requestsPerAddress: 2 });
    try {
      const first = get();
      const second = get();
      await until(() => pending.length === 2);
      const refused = await get().answer;
      expect(refused).toMatchObject({ status: 429, retryAfter: "1" });
      expect(JSON.parse(refused.body)).toMatchObject({ reason: "too_many_in_flight", httpStatus: 429 });
      expect(pending).toHaveLength(2);

      pending[0]!.end("done");
      expect((await first.answer).status).toBe(200);
      const third = get();
      await until(() => pending.length === 3);

      // The browser leaves: its connection closes, and so does its place.
      second.answer.catch(() => undefined);
      second.req.destroy();
      await until(() => pending[1]!.closed);
      const fourth = get();
      await until(() => pending.length === 4);
      for (const res of pending.slice(2)) res.end("done");
      expect((await third.answer).status).toBe(200);
      expect((await fourth.answer).status).toBe(200);
    } finally {
      installPeerStamp();
      await new Promise((resolve) => holder.close(resolve));
    }
  });

  it("frees the places of pipelined requests when their connection drops, not only the one being answered", async () => {
    // Node emits `close` only on the response bound to the socket; the queued ones see their request's.
    const seen: IncomingMessage[] = [];
    const holder = createServer((req) => void seen.push(req));
    await new Promise<void>((resolve) => holder.listen(0, "127.0.0.1", resolve));
    const holderPort = (holder.address() as AddressInfo).port;
    const until = async (check: () => boolean) => {
      while (!check()) await new Promise((resolve) => setImmediate(resolve));
    };
    installPeerStamp({ requestsPerAddress: 8 });
    try {
      const socket = new Socket();
      socket.on("error", () => undefined);
      await new Promise<void>((resolve) => socket.connect(holderPort, "127.0.0.1", resolve));
      socket.write("GET /hang HTTP/1.1\r\nHost: x\r\n\r\n".repeat(4));
      await until(() => seen.length === 4);
      expect(requestsInFlightFrom("127.0.0.1")).toBe(4);
      socket.destroy();
      await until(() => seen.every((req) => req.closed));
      await new Promise((resolve) => setImmediate(resolve));
      expect(requestsInFlightFrom("127.0.0.1")).toBe(0);
    } finally {
      installPeerStamp();
      await new Promise((resolve) => holder.close(resolve));
    }
  });

  it("vouches for a peer only on a request it stamped, whatever PEER_HEADER or marker a client sent", async () => {
    // Requests that reached Next before the stamp was installed carry the client's own headers.
    const forged = await stampedHeaders({ [PEER_HEADER]: "10.0.0.5", [STAMP_HEADER]: "guessed" });
    expect(stampedPeer(forged)).toBe("127.0.0.1");
    expect(stampedPeer(new Headers({ [PEER_HEADER]: "10.0.0.5" }))).toBeNull();
    expect(stampedPeer(new Headers({ [PEER_HEADER]: "10.0.0.5", [STAMP_HEADER]: "guessed" }))).toBeNull();
    const wrong = forged.get(STAMP_HEADER)!.replace(/^./, (c) => (c === "A" ? "B" : "A"));
    expect(stampedPeer(new Headers({ [PEER_HEADER]: "10.0.0.5", [STAMP_HEADER]: wrong }))).toBeNull();
  });

  it("closes an upgrade request in production before any handler sees it", async () => {
    const reached: string[] = [];
    const probe = createServer();
    probe.on("upgrade", (req: IncomingMessage) => reached.push(req.url ?? ""));
    await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
    const probePort = (probe.address() as AddressInfo).port;
    vi.stubEnv("NODE_ENV", "production");
    try {
      const socket = new Socket();
      socket.on("error", () => undefined);
      await new Promise<void>((resolve) => socket.connect(probePort, "127.0.0.1", resolve));
      const closed = new Promise<string>((resolve) => {
        let got = "";
        socket.on("data", (chunk: Buffer) => (got += chunk.toString()));
        socket.on("close", () => resolve(got));
      });
      socket.write(
        "GET /_next/webpack-hmr HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n" +
          `${PEER_HEADER}: 10.0.0.5\r\n\r\n`,
      );
      expect(await closed).toBe("");
      expect(reached).toEqual([]);
    } finally {
      vi.unstubAllEnvs();
      await new Promise((resolve) => probe.close(resolve));
    }
  });

  it("tells loopback addresses from the rest", () => {
    for (const address of ["127.0.0.1", "127.8.0.3", "::1", "::ffff:127.0.0.1"])
      expect(isLoopbackAddress(address), address).toBe(true);
    for (const address of ["0.0.0.0", "::", "10.0.0.5", "::ffff:10.0.0.5", "", undefined])
      expect(isLoopbackAddress(address), String(address)).toBe(false);
  });

  it("without console auth, answers 403 itself to a connection that did not arrive on loopback", () => {
    const reached: string[] = [];
    const probe = createServer((req) => reached.push(req.url ?? ""));
    try {
      installPeerStamp({ loopbackOnly: true });
      // A socket Node never connected: its localAddress is not a loopback one (as on 0.0.0.0 via eth0).
      const offLoopback = new IncomingMessage(new Socket());
      offLoopback.url = "/runs";
      const response = new ServerResponse(offLoopback);
      probe.emit("request", offLoopback, response);
      expect(response.statusCode).toBe(403);
      expect(reached).toEqual([]);
    } finally {
      installPeerStamp({ loopbackOnly: false });
    }
  });

  it("serves loopback connections with the loopback-only guard on", async () => {
    installPeerStamp({ loopbackOnly: true });
    try {
      expect(await ask({})).toMatchObject({ peer: "127.0.0.1" });
    } finally {
      installPeerStamp({ loopbackOnly: false });
    }
  });
});
