import { createServer } from "node:http";
import type { IncomingHttpHeaders, Server } from "node:http";
import type { AddressInfo } from "node:net";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import workflowList from "@/lib/dw/fixtures/workflow-list.json";
import { parseConfig } from "@/lib/server/process/config";
import { isProxiedPath, proxyGet, upstreamUrl } from "@/lib/server/proxy/read-proxy";

interface Seen {
  url: string;
  headers: IncomingHttpHeaders;
}

let server: Server;
let baseUrl: string;
const seen: Seen[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push({ url: req.url ?? "", headers: req.headers });
    if (req.url?.startsWith("/api/workflows/slow")) return; // never answers: exercises the timeout
    if (req.url?.startsWith("/api/namespaces/")) {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ path: req.url }));
      return;
    }
    if (req.url?.startsWith("/api/namespaces")) {
      res.writeHead(401, { "content-type": "application/json" });
      res.end(JSON.stringify({ reason: "unauthorized", message: "Invalid or missing authentication token." }));
      return;
    }
    if (req.url?.startsWith("/api/workers")) {
      // Breaks the worker-list contract: `workers` must be an array.
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ workers: "none" }));
      return;
    }
    if (req.url?.startsWith("/api/task-queues")) {
      res.writeHead(200, { "content-type": "text/html" });
      res.end("<html>gateway</html>");
      return;
    }
    // A valid list (unknown fields survive validation) whose empty search attributes come as PHP's `[]`.
    const body = JSON.stringify({ ...workflowList, path: req.url, padding: "x".repeat(2048) });
    res.writeHead(200, {
      "content-type": "application/json",
      "content-encoding": "gzip",
      "x-durable-workflow-control-plane-version": "2",
      "set-cookie": "upstream=1",
    });
    res.end(gzipSync(body));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe("isProxiedPath", () => {
  it("allows the read surface the console needs", () => {
    for (const path of [
      "health",
      "ready",
      "cluster/info",
      "namespaces",
      "namespaces/default",
      "workflows",
      "workflows/order-1/runs/01j/history",
      "system/operator-metrics",
      "system/repair",
      "workers",
      "workers/w-1",
      "task-queues",
      "task-queues/orders",
    ]) {
      expect(isProxiedPath(path.split("/")), path).toBe(true);
    }
  });

  it("refuses everything else, including traversal", () => {
    for (const path of [
      "",
      "worker/workflow-tasks/poll",
      "cluster",
      "cluster/info/x",
      "health/x",
      "system",
      "namespaces/a/external-storage",
      "service-endpoints",
      "workflows/../worker",
      "workflows/./x",
      "storage/test",
    ]) {
      expect(isProxiedPath(path.split("/")), path).toBe(false);
    }
  });
});

describe("upstreamUrl", () => {
  it("re-encodes segments and keeps the query string", () => {
    const config = parseConfig({ DW_SERVER_URL: "http://dw:8080/" });
    expect(upstreamUrl(config, ["workflows", "a b/c"], "?status=failed&page_size=5")).toBe(
      "http://dw:8080/api/workflows/a%20b%2Fc?status=failed&page_size=5",
    );
    expect(upstreamUrl(config, ["health"], "")).toBe("http://dw:8080/api/health");
  });
});

describe("proxyGet", () => {
  it("forwards token, namespace, version header and query; streams the decoded JSON back", async () => {
    const config = parseConfig({ DW_SERVER_URL: baseUrl, DW_TOKEN: "secret-token" });
    const response = await proxyGet(config, {
      segments: ["workflows"],
      search: "?status=failed",
      namespace: "billing",
      token: config.token,
    });

    expect(response.status).toBe(200);
    expect(response.headers.get("content-encoding")).toBeNull();
    expect(response.headers.get("set-cookie")).toBeNull();
    expect(response.headers.get("x-durable-workflow-control-plane-version")).toBe("2");
    expect(response.headers.get("cache-control")).toBe("no-store");
    const relayed = await response.json();
    expect(relayed).toMatchObject({ path: "/api/workflows?status=failed", workflow_count: 1 });
    expect(relayed.workflows[0].search_attributes).toEqual({});

    const request = seen.at(-1);
    expect(request?.headers.authorization).toBe("Bearer secret-token");
    expect(request?.headers["x-namespace"]).toBe("billing");
    expect(request?.headers["x-durable-workflow-control-plane-version"]).toBe("2");
  });

  it("refuses a namespaced read that names no namespace, without asking the server", async () => {
    const config = parseConfig({ DW_SERVER_URL: baseUrl, DW_NAMESPACE: "default" });
    const before = seen.length;
    for (const segments of [["workflows"], ["workers"], ["task-queues"], ["system", "repair"]]) {
      const response = await proxyGet(config, { segments, search: "", namespace: null, token: config.token });
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({ reason: "namespace_required" });
    }
    expect(seen.length).toBe(before);
  });

  it("relays server-wide reads without a namespace and sends no X-Namespace for them", async () => {
    const config = parseConfig({ DW_SERVER_URL: baseUrl, DW_NAMESPACE: "default" });
    const response = await proxyGet(config, {
      segments: ["namespaces", "billing"],
      search: "",
      namespace: null,
      token: config.token,
    });
    expect(response.status).toBe(200);
    expect(seen.at(-1)?.headers["x-namespace"]).toBeUndefined();
  });

  it("sends no Authorization header when no token is configured", async () => {
    const config = parseConfig({ DW_SERVER_URL: baseUrl });
    await proxyGet(config, { segments: ["health"], search: "", namespace: "default", token: config.token });
    expect(seen.at(-1)?.headers.authorization).toBeUndefined();
  });

  it("answers 502 malformed_response naming the field when a body breaks the contract", async () => {
    const config = parseConfig({ DW_SERVER_URL: baseUrl });
    const response = await proxyGet(config, {
      segments: ["workers"],
      search: "",
      namespace: "default",
      token: config.token,
    });
    expect(response.status).toBe(502);
    expect(await response.json()).toMatchObject({ reason: "malformed_response", issue_path: "$.workers" });

    const html = await proxyGet(config, {
      segments: ["task-queues"],
      search: "",
      namespace: "default",
      token: config.token,
    });
    expect(html.status).toBe(502);
    expect(await html.json()).toMatchObject({ reason: "malformed_response", issue_path: "$" });
  });

  it("relays allow-listed paths no screen reads without validating them", async () => {
    const config = parseConfig({ DW_SERVER_URL: baseUrl });
    const response = await proxyGet(config, {
      segments: ["namespaces", "default"],
      search: "",
      namespace: "default",
      token: config.token,
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ path: "/api/namespaces/default" });
  });

  it("passes the server's error status and body through", async () => {
    const config = parseConfig({ DW_SERVER_URL: baseUrl });
    const response = await proxyGet(config, {
      segments: ["namespaces"],
      search: "",
      namespace: "default",
      token: config.token,
    });
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({
      reason: "unauthorized",
      message: "Invalid or missing authentication token.",
    });
  });

  it("answers 404 not_proxied without calling the server for paths off the allow-list", async () => {
    const config = parseConfig({ DW_SERVER_URL: baseUrl });
    const before = seen.length;
    const response = await proxyGet(config, {
      segments: ["worker", "activity-tasks", "poll"],
      search: "",
      namespace: "default",
      token: config.token,
    });
    expect(response.status).toBe(404);
    expect((await response.json()).reason).toBe("not_proxied");
    expect(seen.length).toBe(before);
  });

  it("answers 502 server_unavailable when nothing listens", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));

    const config = parseConfig({ DW_SERVER_URL: `http://127.0.0.1:${port}`, DW_TOKEN: "secret-token" });
    const response = await proxyGet(config, {
      segments: ["health"],
      search: "",
      namespace: "default",
      token: config.token,
    });
    expect(response.status).toBe(502);
    const body = await response.json();
    expect(body).toMatchObject({ reason: "server_unavailable", server: `127.0.0.1:${port}` });
    expect(JSON.stringify(body)).not.toContain("secret-token");
  });

  it("answers 504 server_timeout when the server does not answer in time", async () => {
    const config = parseConfig({ DW_SERVER_URL: baseUrl, DW_REQUEST_TIMEOUT_MS: "200" });
    const response = await proxyGet(config, {
      segments: ["workflows", "slow"],
      search: "",
      namespace: "default",
      token: config.token,
    });
    expect(response.status).toBe(504);
    expect((await response.json()).reason).toBe("server_timeout");
  });
});
