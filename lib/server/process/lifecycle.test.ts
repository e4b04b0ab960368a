import { EventEmitter } from "node:events";
import { createServer, get, request as httpRequest } from "node:http";
import type { IncomingMessage, Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import {
  endingOnShutdown,
  installLifecycle,
  isDraining,
  resetLifecycle,
  shutdownSignal,
  streamKind,
} from "@/lib/server/process/lifecycle";
import { consoleMetrics, resetConsoleMetrics } from "@/lib/server/metrics/prometheus";

/**
 * The drain on SIGTERM over a real Node HTTP server: new connections are refused, a stream ends
 * cleanly, an in-flight action finishes, and the process exits 0 within the grace — or, past it,
 * what is left is cut and it still exits 0.
 */

let server: Server | null = null;

afterEach(async () => {
  resetLifecycle();
  resetConsoleMetrics();
  server?.closeAllConnections();
  if (server?.listening) await new Promise((resolve) => server?.close(resolve));
  server = null;
});

function deferred<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/** `/stream` holds until the drain, then ends with a last line; `/action` answers when `actionMay` resolves; `/hang` never ends. */
async function start(actionMay: Promise<void>, actionArrived: () => void): Promise<number> {
  server = createServer((req, res) => {
    if (req.url === "/stream") {
      res.writeHead(200, { "content-type": "application/x-ndjson" });
      res.write('{"t":"meta"}\n');
      shutdownSignal().addEventListener("abort", () => res.end('{"t":"end"}\n'), { once: true });
    } else if (req.url === "/action") {
      actionArrived();
      void actionMay.then(() => res.end("done"));
    } else if (req.url === "/hang") {
      res.writeHead(200);
      res.write("x");
    } else res.end("ok");
  });
  await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", resolve));
  return (server.address() as AddressInfo).port;
}

function open(port: number, path: string, method = "GET"): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: "127.0.0.1", port, path, method, agent: false }, resolve);
    req.on("error", reject);
    req.end();
  });
}

function body(response: IncomingMessage): Promise<{ text: string; complete: boolean }> {
  return new Promise((resolve) => {
    let text = "";
    response.setEncoding("utf8");
    response.on("data", (chunk: string) => (text += chunk));
    response.on("end", () => resolve({ text, complete: response.complete }));
    response.on("aborted", () => resolve({ text, complete: false }));
    response.on("error", () => resolve({ text, complete: false }));
  });
}

function connectError(port: number): Promise<string | null> {
  return new Promise((resolve) => {
    const req = get({ host: "127.0.0.1", port, path: "/", agent: false }, (res) => {
      res.resume();
      resolve(null);
    });
    req.on("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
  });
}

describe("the drain on SIGTERM", () => {
  it("refuses new connections, ends the stream cleanly, lets the action finish, then exits 0 within the grace", async () => {
    const actionMay = deferred();
    const actionArrived = deferred();
    const port = await start(actionMay.promise, actionArrived.resolve);
    const signals = new EventEmitter();
    const exited = deferred<number>();
    installLifecycle({
      routeOf: (path) => (path.startsWith("/stream") ? "/api/run-view" : path),
      graceMs: 10_000,
      signals,
      exit: exited.resolve,
      log: () => undefined,
    });

    const stream = await open(port, "/stream");
    const streamBody = body(stream);
    const action = open(port, "/action", "POST");
    await actionArrived.promise;
    expect((await consoleMetrics().openStreams.get()).values.find((v) => v.labels.kind === "run_view")?.value).toBe(1);

    const started = Date.now();
    signals.emit("SIGTERM", "SIGTERM");
    expect(isDraining()).toBe(true);
    expect(await streamBody).toEqual({ text: '{"t":"meta"}\n{"t":"end"}\n', complete: true });
    expect(await connectError(port)).toBe("ECONNREFUSED");

    let exitedYet = false;
    void exited.promise.then(() => (exitedYet = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(exitedYet).toBe(false); // the action is still in flight
    actionMay.resolve();
    const answered = await action;
    expect(answered.statusCode).toBe(200);
    expect(answered.headers.connection).toBe("close");
    expect((await body(answered)).text).toBe("done");
    expect(await exited.promise).toBe(0);
    expect(Date.now() - started).toBeLessThan(10_000);
    const counted = (await consoleMetrics().requests.get()).values.find((v) => v.labels.route === "/api/run-view");
    expect(counted).toMatchObject({ value: 1, labels: { method: "GET", status: "2xx" } });
  });

  it("cuts what is still in flight at the grace and exits 0 all the same", async () => {
    const port = await start(Promise.resolve(), () => undefined);
    const signals = new EventEmitter();
    const exited = deferred<number>();
    installLifecycle({ routeOf: () => "other", graceMs: 300, signals, exit: exited.resolve, log: () => undefined });
    const hanging = body(await open(port, "/hang"));
    const started = Date.now();
    signals.emit("SIGTERM", "SIGTERM");
    expect(await exited.promise).toBe(0);
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    expect((await hanging).complete).toBe(false);
  });

  it("takes SIGTERM over from the listeners already there (Next's, which wait unbounded and exit 143)", () => {
    const signals = new EventEmitter();
    const nexts = () => undefined;
    signals.on("SIGTERM", nexts);
    installLifecycle({ routeOf: () => "other", graceMs: 1_000, signals, takeOver: true, exit: () => undefined });
    expect(signals.listeners("SIGTERM")).not.toContain(nexts);
    expect(signals.listenerCount("SIGTERM")).toBe(1);
  });
});

describe("endingOnShutdown", () => {
  it("ends a relay at its lifetime or at the drain, whichever comes first, and disarms both", () => {
    let ends = 0;
    let armed = 0;
    const schedule = () => {
      armed += 1;
      return () => (armed -= 1);
    };
    const disarm = endingOnShutdown(schedule)(() => (ends += 1));
    expect(armed).toBe(1);
    installLifecycle({ routeOf: () => "other", graceMs: 1_000, signals: null, exit: () => undefined });
    disarm();
    expect(armed).toBe(0);
    endingOnShutdown(schedule)(() => (ends += 1));
    (shutdownSignal() as AbortSignal & { dispatchEvent(e: Event): boolean }).dispatchEvent(new Event("abort"));
    expect(ends).toBe(1);
  });
});

describe("streamKind", () => {
  it("tells the streams apart by route and query", () => {
    expect(streamKind("/api/run-view", "/api/run-view?wait=1")).toBe("run_view");
    expect(streamKind("/api/kikwiflow/definitions/[id]/pulse", "/x")).toBe("pulse_relay");
    expect(streamKind("/api/dw/[...path]", "/api/dw/workflows/a/runs/b/history?wait_new_event=1")).toBe("long_poll");
    expect(streamKind("/api/dw/[...path]", "/api/dw/workflows/a/runs/b/history/export")).toBe("export");
    expect(streamKind("/api/dw/[...path]", "/api/dw/workflows")).toBeNull();
  });
});
