import "server-only";
import { createServer, request } from "node:http";
import type { AddressInfo } from "node:net";
import { installPeerStamp } from "./peer";

/**
 * For tests: the headers a request carries after the real stamp saw it (PEER_HEADER and this
 * process's marker), by sending one through a throwaway server on 127.0.0.1. Installs the stamp.
 * A header given as a list is sent as that many lines (as oauth2-proxy sends groups).
 */
export async function stampedHeaders(sent: Record<string, string | string[]> = {}): Promise<Headers> {
  installPeerStamp();
  let seen: Headers | null = null;
  const server = createServer((req, res) => {
    seen = new Headers();
    for (const [name, value] of Object.entries(req.headers)) if (typeof value === "string") seen.set(name, value);
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  try {
    const { port } = server.address() as AddressInfo;
    await new Promise<void>((resolve, reject) => {
      const req = request({ host: "127.0.0.1", port, path: "/", headers: sent, agent: false }, (res) => {
        res.resume();
        res.on("end", resolve);
      });
      req.on("error", reject);
      req.end();
    });
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
  if (seen === null) throw new Error("the throwaway server saw no request");
  return seen;
}
