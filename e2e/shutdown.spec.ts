import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { createServer, request as httpRequest } from "node:http";
import type { Server } from "node:http";
import { connect } from "node:net";
import { join } from "node:path";
import { expect, test } from "@playwright/test";
import { freePort, waitFor } from "./operator-fixtures";

/**
 * A production console (`next start` of this build) told SIGTERM while a run view holds a long-poll
 * and an action is being sent (decision 0062): it refuses new connections, ends the stream cleanly
 * (the NDJSON answer completes with its `done` line), lets the action finish, and exits 0 within the
 * grace. The action is held in flight by a relay between the console and the Durable Workflow server
 * that keeps the command until the test lets it go.
 */

const dwHost = process.env.E2E_DW_HOST ?? "";
const token = process.env.E2E_TOKEN ?? "";
const GRACE_SECONDS = 15;

interface Relay {
  url: string;
  server: Server;
  commandArrived: Promise<void>;
  release: () => void;
}

/** Passes everything to the DW server; a run command (`…/cancel`) waits for `release()`. */
async function startRelay(): Promise<Relay> {
  let arrived!: () => void;
  let release!: () => void;
  const commandArrived = new Promise<void>((resolve) => (arrived = resolve));
  const released = new Promise<void>((resolve) => (release = resolve));
  const [host, port] = dwHost.split(":");
  const server = createServer((req, res) => {
    const held = req.method === "POST" && /\/cancel$/.test(req.url ?? "");
    const forward = () => {
      const upstream = httpRequest(
        { host, port: Number(port), path: req.url, method: req.method, headers: req.headers },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      upstream.on("error", () => res.destroy());
      req.pipe(upstream);
    };
    if (held) {
      arrived();
      void released.then(forward);
    } else forward();
  });
  const relayPort = await freePort();
  await new Promise<void>((resolve) => server.listen(relayPort, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${relayPort}`, server, commandArrived, release };
}

function refusesConnections(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(false);
    });
    socket.once("error", (error: NodeJS.ErrnoException) => resolve(error.code === "ECONNREFUSED"));
  });
}

function exitOf(child: ChildProcess): Promise<{ code: number | null; signal: string | null }> {
  return new Promise((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));
}

test("SIGTERM: new connections refused, the run view's long-poll ends cleanly, the action finishes, exit 0 within the grace", async () => {
  test.setTimeout(180_000);
  expect(dwHost, "the embedded server of playwright.config.ts").not.toBe("");
  const relay = await startRelay();
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const child = spawn(
    process.execPath,
    [
      join(process.cwd(), "node_modules", "next", "dist", "bin", "next"),
      "start",
      "-p",
      String(port),
      "-H",
      "127.0.0.1",
    ],
    {
      env: {
        ...process.env,
        NEXT_TELEMETRY_DISABLED: "1",
        DW_SERVER_URL: relay.url,
        DW_TOKEN: token,
        BREAKWATER_AUTH: "",
        BREAKWATER_LOG_LEVEL: "info",
        BREAKWATER_SHUTDOWN_GRACE_SECONDS: String(GRACE_SECONDS),
      },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const exited = exitOf(child);
  try {
    // Ready: configuration valid and the server answering (through the relay).
    await waitFor(
      "the console to be ready",
      async () => (await fetch(`${origin}/api/readyz`).catch(() => null))?.status === 200,
      90_000,
    );

    const workflowId = `shutdown-${Date.now()}`;
    const started = await fetch(`http://${dwHost}/api/workflows`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${token}`,
        "content-type": "application/json",
        "x-durable-workflow-control-plane-version": "2",
      },
      body: JSON.stringify({ workflow_type: "ShutdownTest", workflow_id: workflowId, task_queue: "nobody-polls" }),
    });
    expect(started.ok).toBe(true);
    const { run_id: runId } = (await started.json()) as { run_id: string };
    const view = `${origin}/api/run-view?workflow_id=${encodeURIComponent(workflowId)}&run_id=${runId}`;
    const headers = { "x-namespace": "default", accept: "application/x-ndjson" };

    // The first view walks the run; the next one, from where it ended, holds an upstream long-poll.
    const first = (await (await fetch(view, { headers })).text()).trim().split("\n");
    const done = first
      .map((line) => JSON.parse(line) as { t: string; lastSequence?: number })
      .find((l) => l.t === "done");
    expect(done?.lastSequence, first.join("\n")).toBeGreaterThan(0);
    const held = await fetch(`${view}&since=${done?.lastSequence}&wait=1`, { headers });
    expect(held.status).toBe(200);
    const reader = held.body?.getReader();
    const decoder = new TextDecoder();
    let streamed = "";
    const streamEnded = (async () => {
      for (;;) {
        const chunk = await reader?.read();
        if (!chunk || chunk.done) return;
        streamed += decoder.decode(chunk.value, { stream: true });
      }
    })();
    await waitFor("the long-poll to be held", () => Promise.resolve(streamed.includes('"held":true')));

    // An action on its way to the server, held by the relay.
    const action = fetch(`${origin}/api/actions/runs`, {
      method: "POST",
      headers: {
        origin,
        "sec-fetch-site": "same-origin",
        "content-type": "application/json",
        "x-namespace": "default",
      },
      body: JSON.stringify({ action: "cancel", workflowId, runId, requestId: `shutdown-cancel-${runId}`, reason: "x" }),
    });
    await relay.commandArrived;

    const signalled = Date.now();
    child.kill("SIGTERM");
    // The stream ends cleanly (its last line is `done`), while the action is still held.
    await streamEnded;
    const lines = streamed
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { t: string });
    expect(lines.at(-1)?.t, streamed).toBe("done");
    await waitFor("new connections to be refused", () => refusesConnections(port), 5_000);
    expect(child.exitCode).toBeNull();

    relay.release();
    const answered = await action;
    expect(answered.status, await answered.clone().text()).toBeLessThan(300);
    const exit = await exited;
    expect(exit, output).toEqual({ code: 0, signal: null });
    expect(Date.now() - signalled).toBeLessThan(GRACE_SECONDS * 1000);
    expect(output).toContain("drained");
  } finally {
    relay.release();
    child.kill("SIGKILL"); // a no-op once it exited
    relay.server.closeAllConnections();
    relay.server.close();
  }
});
