import { connect } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { FakeClock } from "../clock";
import { refreshStaleSummaries } from "../engine/repair-pass";
import type { RawResponse } from "./hostile/raw-client";
import { CP_HEADERS, rawRequest, WORKER_HEADERS } from "./hostile/raw-client";
import type { HostPolicy } from "./hosts";
import { hostPolicyFromEnv } from "./hosts";
import type { EmbeddedServer } from "./test-support";
import { NO_AUTH, startEmbeddedServer } from "./test-support";

/**
 * DNS rebinding against the embedded server (issue 37): a page on an attacker's name that resolves
 * to 127.0.0.1 sends `Host: rebind.attacker.test:8080`. Even with auth off (driver `none`, which
 * grants admin), such a request must be refused with 421 before it writes anything, on both
 * planes and every route; loopback names and the configured names are answered.
 */

const REBIND = "rebind.attacker.test:8080";
let server: EmbeddedServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(hosts?: HostPolicy): Promise<EmbeddedServer> {
  server = await startEmbeddedServer({
    clock: new FakeClock(),
    auth: NO_AUTH,
    pollTimeoutMs: 50,
    hosts,
  });
  return server;
}

function send(s: EmbeddedServer, host: string, method: string, path: string, body?: unknown): Promise<RawResponse> {
  const worker = path.startsWith("/api/worker/");
  return rawRequest(s.url, {
    method,
    path,
    headers: { ...(worker ? WORKER_HEADERS : { ...CP_HEADERS, "content-type": "application/json" }), host },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

/** Sends `head` + body verbatim on a fresh socket and returns the raw answer (for what node:http will not send). */
function rawExchange(s: EmbeddedServer, head: string, body: string): Promise<string> {
  const base = new URL(s.url);
  return new Promise<string>((resolve, reject) => {
    const socket = connect(Number(base.port), base.hostname, () =>
      socket.end(`${head}content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`),
    );
    let text = "";
    socket.on("data", (chunk: Buffer) => (text += chunk.toString()));
    socket.on("end", () => resolve(text));
    socket.on("error", reject);
  });
}

function count(s: EmbeddedServer, sql: string, ...args: unknown[]): number {
  return (s.db.prepare(sql).get(...args) as { n: number }).n;
}

function expectRefused(res: RawResponse): void {
  expect(res.status).toBe(421);
  expect(res.json).toMatchObject({ reason: "host_not_allowed" });
  expect(String((res.json as { message: string }).message)).toContain("DW_EMBEDDED_ALLOWED_HOSTS");
}

describe("the Host allow-list on the control plane", () => {
  it("refuses a rebinding start with 421 in the control-plane envelope and starts nothing", async () => {
    const s = await start();
    const res = await send(s, REBIND, "POST", "/api/workflows", {
      workflow_id: "rebind-1",
      workflow_type: "X",
      task_queue: "q",
    });
    expectRefused(res);
    expect(res.headers["x-durable-workflow-control-plane-version"]).toBe("2");
    expect(count(s, "SELECT count(*) AS n FROM workflow_instances")).toBe(0);
    expect(count(s, "SELECT count(*) AS n FROM workflow_runs")).toBe(0);
    // The same request addressed by a loopback name is the one that starts a run.
    expect((await send(s, `localhost:${new URL(s.url).port}`, "GET", "/api/workflows/rebind-1")).status).toBe(404);
  });

  it("refuses a rebinding repair pass: the stuck run stays unrepaired until a loopback call repairs it", async () => {
    const s = await start();
    const started = s.engine.startWorkflow({
      namespace: "default",
      workflow_id: "stuck-1",
      workflow_type: "X",
      task_queue: "q",
    });
    const runId = started.run_id as string;
    s.db.prepare("DELETE FROM workflow_tasks WHERE workflow_run_id = ?").run(runId);
    expect(refreshStaleSummaries(s.engine, s.engine.clock.now())).toBe(1);
    const tasks = (): number => count(s, "SELECT count(*) AS n FROM workflow_tasks WHERE workflow_run_id = ?", runId);

    expectRefused(await send(s, REBIND, "POST", "/api/system/repair/pass", {}));
    expect(tasks()).toBe(0);

    const repaired = await send(s, "127.0.0.1", "POST", "/api/system/repair/pass", {});
    expect(repaired.status).toBe(200);
    expect(repaired.json).toMatchObject({ repaired_missing_tasks: 1 });
    expect(tasks()).toBe(1);
  });

  it("refuses health, unknown routes and undecodable paths too, so a rebinding page learns nothing", async () => {
    const s = await start();
    expectRefused(await send(s, REBIND, "GET", "/api/health"));
    expectRefused(await send(s, REBIND, "GET", "/api/no-such-route"));
    expectRefused(await send(s, REBIND, "GET", "/api/workflows/%zz"));
    expectRefused(await send(s, "127.0.0.1.rebind.attacker.test", "GET", "/api/health"));
    expectRefused(await send(s, "localhost.attacker.test", "GET", "/api/health"));
  });
});

describe("the Host allow-list on the worker plane", () => {
  it("refuses a rebinding register with 421 in the worker envelope and registers nobody", async () => {
    const s = await start();
    const res = await send(s, REBIND, "POST", "/api/worker/register", {
      worker_id: "rebind-worker",
      task_queue: "q",
      runtime: "python",
    });
    expectRefused(res);
    expect(res.headers["x-durable-workflow-protocol-version"]).toBe("1.20");
    expect(res.json).toMatchObject({ protocol_version: "1.20", server_capabilities: { long_poll_timeout: 30 } });
    expect(count(s, "SELECT count(*) AS n FROM worker_registrations")).toBe(0);
  });

  it("refuses a rebinding poll: the ready task is not leased and a loopback worker still gets it", async () => {
    const s = await start();
    s.engine.startWorkflow({ namespace: "default", workflow_id: "wf-1", workflow_type: "X", task_queue: "q" });
    const register = { worker_id: "w", task_queue: "q", runtime: "python" };
    expect((await send(s, "127.0.0.1", "POST", "/api/worker/register", register)).status).toBe(201);
    expectRefused(
      await send(s, REBIND, "POST", "/api/worker/workflow-tasks/poll", { worker_id: "w", task_queue: "q" }),
    );
    expect(count(s, "SELECT count(*) AS n FROM workflow_tasks WHERE lease_owner IS NOT NULL")).toBe(0);

    const polled = await send(s, "127.0.0.1", "POST", "/api/worker/workflow-tasks/poll", {
      worker_id: "w",
      task_queue: "q",
    });
    expect(polled.status).toBe(200);
    expect(polled.json).toMatchObject({ task: { workflow_id: "wf-1", workflow_task_attempt: 1 } });
  });
});

describe("names that are answered", () => {
  it("answers loopback names and addresses on any port, in any case", async () => {
    const s = await start();
    const port = new URL(s.url).port;
    for (const host of [
      `127.0.0.1:${port}`,
      "127.0.0.1",
      `localhost:${port}`,
      "LocalHost:1",
      "127.9.8.7:4444",
      "[::1]",
    ]) {
      const res = await send(s, host, "GET", "/api/health");
      expect(res.status, host).toBe(200);
    }
  });

  it("answers configured names (host: any port, host:port: that port only) and nothing else", async () => {
    const s = await start(
      hostPolicyFromEnv({ DW_EMBEDDED_ALLOWED_HOSTS: "devbox.example.test, dw.example.test:9000" }),
    );
    expect((await send(s, "devbox.example.test:8080", "GET", "/api/health")).status).toBe(200);
    expect((await send(s, "DEVBOX.example.test", "GET", "/api/health")).status).toBe(200);
    expect((await send(s, "dw.example.test:9000", "GET", "/api/health")).status).toBe(200);
    expectRefused(await send(s, "dw.example.test:9001", "GET", "/api/health"));
    expectRefused(await send(s, "dw.example.test", "GET", "/api/health"));
    expectRefused(await send(s, REBIND, "GET", "/api/health"));
  });

  it("refuses a request without a Host header (HTTP/1.0) and one with two", async () => {
    const s = await start();
    const body = JSON.stringify({ workflow_id: "no-host", workflow_type: "X", task_queue: "q" });
    const headers =
      "content-type: application/json\r\nx-durable-workflow-control-plane-version: 2\r\nconnection: close\r\n";
    const none = await rawExchange(s, `POST /api/workflows HTTP/1.0\r\n${headers}`, body);
    expect(none).toMatch(/^HTTP\/1\.[01] 421 /);
    expect(none).toContain('"reason":"host_not_allowed"');
    const two = await rawExchange(
      s,
      `POST /api/workflows HTTP/1.1\r\nhost: 127.0.0.1\r\nhost: ${REBIND}\r\n${headers}`,
      body,
    );
    expect(two).toMatch(/^HTTP\/1\.1 421 /);
    expect(count(s, "SELECT count(*) AS n FROM workflow_instances")).toBe(0);
  });
});

describe("DW_EMBEDDED_ALLOWED_HOSTS", () => {
  it("names the variable and the entry when an entry is not host or host:port", () => {
    expect(() => hostPolicyFromEnv({ DW_EMBEDDED_ALLOWED_HOSTS: "ok.example.test,http://bad.example.test/" })).toThrow(
      /DW_EMBEDDED_ALLOWED_HOSTS: "http:\/\/bad\.example\.test\/" is not host or host:port/,
    );
    expect(() => hostPolicyFromEnv({ DW_EMBEDDED_ALLOWED_HOSTS: "x.test:70000" })).toThrow(/x\.test:70000/);
  });
});
