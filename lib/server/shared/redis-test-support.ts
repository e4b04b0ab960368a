import "server-only";
import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";

/**
 * A real Redis (Debian's redis-server) for a test: its own port and temp directory, no persistence,
 * stopped by its own pid. `stop` then `start` again on the same port simulates an outage.
 */
export interface TestRedis {
  url: string;
  port: number;
  /** Kills the server (SIGKILL by pid): clients see the connection drop. */
  kill(): Promise<void>;
  /** Starts it again on the same port, empty. */
  restart(): Promise<void>;
  /** Stops it and removes its directory. */
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

async function answers(port: number, deadlineMs: number): Promise<void> {
  const started = Date.now();
  for (;;) {
    const probe = new Redis({
      port,
      host: "127.0.0.1",
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    probe.on("error", () => undefined);
    try {
      await probe.connect();
      if ((await probe.ping()) === "PONG") return;
    } catch {
      // not yet
    } finally {
      probe.disconnect();
    }
    if (Date.now() - started > deadlineMs) throw new Error(`redis-server on ${port} did not answer`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export async function startTestRedis(port?: number): Promise<TestRedis> {
  const chosen = port ?? (await freePort());
  const dir = mkdtempSync(join(tmpdir(), "bw-redis-"));
  let child: ChildProcess | null = null;
  const launch = async () => {
    child = spawn(
      process.env.REDIS_SERVER ?? "redis-server",
      ["--port", String(chosen), "--bind", "127.0.0.1", "--dir", dir, "--save", "", "--appendonly", "no"],
      { stdio: "ignore" },
    );
    await answers(chosen, 10_000);
  };
  const kill = async () => {
    const running = child;
    child = null;
    if (running === null || running.exitCode !== null || running.pid === undefined) return;
    const exited = new Promise((resolve) => running.once("exit", resolve));
    process.kill(running.pid, "SIGKILL");
    await exited;
  };
  await launch();
  return {
    url: `redis://127.0.0.1:${chosen}`,
    port: chosen,
    kill,
    restart: launch,
    async stop() {
      await kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
