import { createServer } from "node:net";
import type { Server } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { launcherBindHost, listeningAddresses, openBindProblem } from "./bind";

const password = {
  BREAKWATER_AUTH: "password",
  BREAKWATER_USERS_FILE: "u.json",
  BREAKWATER_SESSION_SECRET: "s".repeat(32),
};

describe("npm start's bind address", () => {
  it("follows the parsed auth mode: BREAKWATER_AUTH=none stays on loopback whatever BREAKWATER_HOST says", () => {
    // The launcher used to test the raw variable for non-emptiness, so "none" listened on 0.0.0.0.
    expect(launcherBindHost({ BREAKWATER_AUTH: "none", BREAKWATER_HOST: "0.0.0.0" })).toBe("127.0.0.1");
    expect(launcherBindHost({ BREAKWATER_HOST: "0.0.0.0" })).toBe("127.0.0.1");
    expect(launcherBindHost({ BREAKWATER_AUTH: "", BREAKWATER_HOST: "0.0.0.0" })).toBe("127.0.0.1");
  });

  it("keeps loopback when the auth settings are ones the console will refuse", () => {
    expect(launcherBindHost({ BREAKWATER_AUTH: "password", BREAKWATER_HOST: "0.0.0.0" })).toBe("127.0.0.1");
    expect(launcherBindHost({ BREAKWATER_AUTH: "ldap", BREAKWATER_HOST: "0.0.0.0" })).toBe("127.0.0.1");
  });

  it("binds BREAKWATER_HOST once authentication is really on", () => {
    expect(launcherBindHost({ ...password, BREAKWATER_HOST: "0.0.0.0" })).toBe("0.0.0.0");
    expect(launcherBindHost({ ...password })).toBe("127.0.0.1");
  });
});

describe("the console's own refusal of an open bind", () => {
  let server: Server | undefined;
  afterEach(async () => {
    await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
    server = undefined;
  });

  it("finds this process's listening servers", async () => {
    server = createServer();
    await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", resolve));
    const port = (server.address() as { port: number }).port;
    expect(listeningAddresses()).toContainEqual({ address: "127.0.0.1", port });
  });

  it("objects to any non-loopback address and names it", () => {
    expect(
      openBindProblem([
        { address: "127.0.0.1", port: 3000 },
        { address: "::1", port: 3000 },
      ]),
    ).toBeNull();
    expect(openBindProblem([{ address: "0.0.0.0", port: 3000 }])).toMatch(
      /listening on 0\.0\.0\.0:3000, beyond loopback/,
    );
    expect(openBindProblem([{ address: "::", port: 3000 }])).toMatch(/\[::\]:3000/);
  });
});
