import { mkdtempSync, rmSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { FakeClock } from "../../clock";
import { createEngine } from "../../engine";
import type { Db } from "../../store/db";
import { openDb } from "../../store/db";
import { buildApp } from "../app";
import { NO_AUTH } from "../test-support";
import { CP_HEADERS, rawRequest } from "./raw-client";

/**
 * Clients that never finish their request (slowloris) are cut off by the request timeout instead
 * of holding a connection forever; a held long-poll, whose request is complete, is not.
 */
const REQUEST_TIMEOUT_MS = 400;

let dir: string;
let db: Db;
let app: FastifyInstance;
let url: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "bw-slow-"));
  const clock = new FakeClock();
  db = openDb(join(dir, "slow.db"), clock);
  const engine = createEngine({ db, clock });
  app = buildApp({
    db,
    clock,
    engine,
    auth: NO_AUTH,
    pollTimeoutMs: 1500,
    historyPollTimeoutMs: 300,
    requestTimeoutMs: REQUEST_TIMEOUT_MS,
  });
  url = await app.listen({ host: "127.0.0.1", port: 0 });
});
afterAll(async () => {
  await app.close();
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Writes `bytes` on a raw socket and resolves with what came back once the server closed it. */
function stall(bytes: string, guardMs: number): Promise<{ text: string; ms: number; closedByServer: boolean }> {
  const { hostname, port } = new URL(url);
  const t0 = performance.now();
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname, () => socket.write(bytes));
    const chunks: Buffer[] = [];
    const guard = setTimeout(() => {
      socket.destroy();
      resolve({ text: Buffer.concat(chunks).toString(), ms: performance.now() - t0, closedByServer: false });
    }, guardMs);
    socket.on("data", (c: Buffer) => chunks.push(c));
    socket.on("error", () => undefined);
    socket.on("close", () => {
      clearTimeout(guard);
      resolve({ text: Buffer.concat(chunks).toString(), ms: performance.now() - t0, closedByServer: true });
    });
  });
}

describe("slow and stalled clients", () => {
  test("a declared body that never arrives is answered 408 and closed within the request timeout", async () => {
    const head =
      "POST /api/workflows HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nX-Durable-Workflow-Control-Plane-Version: 2\r\nContent-Length: 100\r\n\r\n{";
    const r = await stall(head, 10_000);
    expect(r.closedByServer).toBe(true);
    expect(r.text).toMatch(/^HTTP\/1\.1 408/);
    expect(r.ms).toBeLessThan(REQUEST_TIMEOUT_MS + 2000);
  });

  test("headers that never end are cut off too", async () => {
    const r = await stall("GET /api/workflows HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Trickle: ", 10_000);
    expect(r.closedByServer).toBe(true);
    expect(r.ms).toBeLessThan(REQUEST_TIMEOUT_MS + 2000);
  });

  test("a long-poll held longer than the request timeout still answers normally", async () => {
    const worker = { "content-type": "application/json", "x-durable-workflow-protocol-version": "1.19" };
    expect(
      (
        await rawRequest(url, {
          method: "POST",
          path: "/api/worker/register",
          headers: worker,
          body: JSON.stringify({ worker_id: "slow-w", task_queue: "q", runtime: "typescript" }),
        })
      ).status,
    ).toBe(201);
    const poll = await rawRequest(url, {
      method: "POST",
      path: "/api/worker/workflow-tasks/poll",
      headers: worker,
      body: JSON.stringify({ worker_id: "slow-w", task_queue: "q" }),
      timeoutMs: 5000,
    });
    expect(poll.status).toBe(200);
    expect(poll.ms).toBeGreaterThan(REQUEST_TIMEOUT_MS);
    expect((poll.json as { task: unknown }).task).toBeNull();
    const list = await rawRequest(url, { path: "/api/workflows", headers: CP_HEADERS });
    expect(list.status).toBe(200);
  });
});
