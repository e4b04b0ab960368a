import { createHmac, timingSafeEqual } from "node:crypto";
import { createServer } from "node:http";
import type { IncomingHttpHeaders, Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { realFixture } from "@/contracts/fixtures/load";
import { createDwClient } from "@/lib/dw/client";
import { ConfigError, parseConfig } from "@/lib/server/process/config";
import { credentialedFetch } from "@/lib/server/proxy/dw-client";
import { proxyGet, readTimeoutMs } from "@/lib/server/proxy/read-proxy";
import { longPollLimitFor, resetLongPollLimits } from "@/lib/server/proxy/long-poll";

/**
 * A loopback server that authenticates like the real `signature` driver
 * (durable-workflow/server app/Auth/ConfiguredAuthProvider.php@83424d3): HMAC-SHA256 of the raw body
 * under the key, lowercase hex, in `X-Signature`; the same messages on failure.
 */
const KEY = "bw-signature-key";
let server: Server;
let baseUrl: string;
let clusterInfoCalls = 0;
const seen: { method: string; url: string; headers: IncomingHttpHeaders; body: string }[] = [];

function verified(signature: string | undefined, body: Buffer): boolean {
  if (!signature) return false;
  const expected = Buffer.from(createHmac("sha256", KEY).update(body).digest("hex"));
  const given = Buffer.from(signature);
  return expected.length === given.length && timingSafeEqual(expected, given);
}

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      seen.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, body: body.toString("utf8") });
      const json = (status: number, value: unknown) => {
        res.writeHead(status, { "content-type": "application/json" });
        res.end(JSON.stringify(value));
      };
      const signature = req.headers["x-signature"];
      if (typeof signature !== "string")
        return json(401, { message: "Missing request signature.", reason: "unauthenticated" });
      if (!verified(signature, body))
        return json(401, { message: "Invalid request signature.", reason: "unauthenticated" });
      if (req.url === "/api/cluster/info") {
        clusterInfoCalls += 1;
        return json(200, realFixture("2026-08", "cluster-info"));
      }
      if (req.method === "GET" && req.url?.startsWith("/api/workflows?"))
        return json(200, realFixture("2026-08", "workflows-list"));
      if (req.method === "POST" && req.url === "/api/workflows/order-42/cancel")
        return json(200, realFixture("2026-08", "command-cancel"));
      json(404, { reason: "not_found" });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

beforeEach(() => {
  seen.length = 0;
  resetLongPollLimits();
});

const signatureConfig = (key = KEY) =>
  parseConfig({
    DW_SERVER_URL: baseUrl,
    DW_AUTH_DRIVER: "signature",
    DW_SIGNATURE_KEY: key,
    DW_TOKEN: "ignored-token",
  });

describe("DW_AUTH_DRIVER=signature", () => {
  it("signs the read proxy's GETs (HMAC of the empty body) and sends no bearer token", async () => {
    const response = await proxyGet(signatureConfig(), {
      segments: ["workflows"],
      search: "?page_size=2",
      namespace: "default",
      token: "ignored-token",
    });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { workflow_count: number }).workflow_count).toBe(2);
    const request = seen.find((entry) => entry.url.startsWith("/api/workflows"));
    expect(request?.headers["x-signature"]).toBe(createHmac("sha256", KEY).update("").digest("hex"));
    expect(request?.headers.authorization).toBeUndefined();
  });

  it("a wrong key is refused by the server, and the proxy relays its 401", async () => {
    const response = await proxyGet(signatureConfig("wrong-key"), {
      segments: ["workflows"],
      search: "?page_size=2",
      namespace: "default",
      token: "ignored-token",
    });
    expect(response.status).toBe(401);
    expect(((await response.json()) as { message: string }).message).toBe("Invalid request signature.");
  });

  it("signs a command's exact body bytes", async () => {
    const config = signatureConfig();
    const client = createDwClient({
      baseUrl,
      fetch: credentialedFetch(config, async () => null, globalThis.fetch.bind(globalThis)),
    });
    const result = await client.cancelWorkflow("order-42", { reason: "operator requested cancel", requestId: "req-1" });
    expect(result.kind).toBe("accepted");
    const request = seen.find((entry) => entry.method === "POST");
    expect(request?.body).toBe(JSON.stringify({ reason: "operator requested cancel", request_id: "req-1" }));
    expect(request?.headers["x-signature"]).toBe("d7b000c564356630ea7264db1d1f604435afb6cb27ac7c9af2f1a9c25fc2b2e9");
  });

  it("DW_AUTH_DRIVER=none sends no credential at all", async () => {
    const response = await proxyGet(parseConfig({ DW_SERVER_URL: baseUrl, DW_AUTH_DRIVER: "none", DW_TOKEN: "t" }), {
      segments: ["workflows"],
      search: "",
      namespace: "default",
      token: "t",
    });
    expect(response.status).toBe(401);
    const request = seen.at(-1);
    expect(request?.headers.authorization).toBeUndefined();
    expect(request?.headers["x-signature"]).toBeUndefined();
  });
});

describe("configuration", () => {
  it("requires DW_SIGNATURE_KEY with the signature driver, without echoing secrets", () => {
    expect(() => parseConfig({ DW_AUTH_DRIVER: "signature" })).toThrow(ConfigError);
    try {
      parseConfig({ DW_AUTH_DRIVER: "signature", DW_SIGNATURE_KEY: "   " });
    } catch (error) {
      expect((error as ConfigError).variables).toEqual(["DW_SIGNATURE_KEY"]);
    }
  });

  it("rejects an unknown driver and defaults to bearer tokens", () => {
    expect(() => parseConfig({ DW_AUTH_DRIVER: "hmac" })).toThrow(/DW_AUTH_DRIVER: must be token, signature or none/);
    expect(parseConfig({}).dwAuth).toEqual({ driver: "token" });
    expect(parseConfig({ DW_AUTH_DRIVER: "Signature", DW_SIGNATURE_KEY: "k" }).dwAuth).toEqual({
      driver: "signature",
      signatureKey: "k",
    });
  });

  it("gives the history export its own, longer read timeout", () => {
    expect(parseConfig({}).exportTimeoutMs).toBe(120_000);
    expect(parseConfig({ DW_EXPORT_TIMEOUT_MS: "300000" }).exportTimeoutMs).toBe(300_000);
    expect(() => parseConfig({ DW_EXPORT_TIMEOUT_MS: "10" })).toThrow(/DW_EXPORT_TIMEOUT_MS/);
  });
});

describe("read limits", () => {
  it("a history long-poll waits for the server's advertised hold (60 s here) plus grace, learned once a minute", async () => {
    const config = signatureConfig();
    let now = 1_000_000;
    const before = clusterInfoCalls;
    expect(await longPollLimitFor(config, () => now)).toBe(70_000);
    now += 59_000;
    expect(await longPollLimitFor(config, () => now)).toBe(70_000);
    expect(clusterInfoCalls - before).toBe(1);
    now += 2_000;
    await longPollLimitFor(config, () => now);
    expect(clusterInfoCalls - before).toBe(2);
  });

  it("falls back to the server default (30 s) plus grace when cluster/info cannot be read", async () => {
    const config = parseConfig({ DW_SERVER_URL: "http://127.0.0.1:9", DW_REQUEST_TIMEOUT_MS: "500" });
    expect(await longPollLimitFor(config)).toBe(40_000);
  });

  it("picks the limit per request: long-poll, export, anything else", async () => {
    const config = parseConfig({ DW_SERVER_URL: baseUrl, DW_REQUEST_TIMEOUT_MS: "10000" });
    const learned = async () => 70_000;
    expect(
      await readTimeoutMs(
        config,
        { segments: ["workflows", "w", "runs", "r", "history"], search: "?wait_new_event=1" },
        learned,
      ),
    ).toBe(70_000);
    expect(
      await readTimeoutMs(
        config,
        { segments: ["workflows", "w", "runs", "r", "history", "export"], search: "" },
        learned,
      ),
    ).toBe(120_000);
    expect(
      await readTimeoutMs(config, { segments: ["workflows", "w", "runs", "r", "history"], search: "" }, learned),
    ).toBe(10_000);
  });
});
