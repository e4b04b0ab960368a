import { createServer, request } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { installPeerStamp, PEER_HEADER, peerStampInstalled } from "./peer";

/** A real HTTP server on 127.0.0.1: the stamp replaces whatever peer header the client sent. */

let server: ReturnType<typeof createServer>;
let port = 0;

beforeAll(async () => {
  installPeerStamp();
  server = createServer((req, res) => {
    res.end(JSON.stringify({ peer: req.headers[PEER_HEADER] }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

function ask(headers: Record<string, string>): Promise<{ peer: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path: "/", headers }, (res) => {
      let body = "";
      res.on("data", (chunk: Buffer) => (body += chunk.toString()));
      res.on("end", () => resolve(JSON.parse(body) as { peer: string }));
    });
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
    expect(await ask({})).toEqual({ peer: "127.0.0.1" });
    expect(await ask({ [PEER_HEADER]: "10.0.0.5", "x-forwarded-for": "10.0.0.5" })).toEqual({ peer: "127.0.0.1" });
  });
});
