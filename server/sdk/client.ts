import http from "node:http";
import https from "node:https";
import type { z } from "zod";
import { errorBodySchema, PROTOCOL_VERSION } from "./protocol";

export interface WorkerClientOptions {
  baseUrl: string;
  token?: string;
  namespace?: string;
}

/** A worker-plane request the server refused; `reason` is the server's machine-readable reason. */
export class WorkerProtocolError extends Error {
  constructor(
    readonly status: number,
    readonly reason: string | null,
    message: string,
    readonly body: unknown,
  ) {
    super(message);
    this.name = "WorkerProtocolError";
  }
}

/**
 * The SDK's only way to the server: JSON over HTTP to `/api/worker/*` with the protocol header,
 * the bearer token and the namespace. Responses are validated before use.
 *
 * Requests go through node:http with a keep-alive agent rather than global fetch: at a few
 * thousand requests per second fetch's per-request stream and signal machinery cost more CPU
 * than the worker's own work, and the wire is the same.
 */
export class WorkerClient {
  private readonly base: URL;
  private readonly headers: Record<string, string>;
  private readonly agent: http.Agent;
  private readonly transport: typeof http | typeof https;

  constructor(opts: WorkerClientOptions) {
    this.base = new URL(opts.baseUrl.replace(/\/+$/, "") + "/api/worker");
    this.transport = this.base.protocol === "https:" ? https : http;
    this.agent = new this.transport.Agent({ keepAlive: true });
    this.headers = {
      "Content-Type": "application/json",
      Accept: "application/json",
      "X-Durable-Workflow-Protocol-Version": PROTOCOL_VERSION,
      ...(opts.namespace ? { "X-Namespace": opts.namespace } : {}),
      ...(opts.token ? { Authorization: `Bearer ${opts.token}` } : {}),
    };
  }

  async post<S extends z.ZodType>(path: string, body: unknown, schema: S, signal?: AbortSignal): Promise<z.infer<S>> {
    const payload = Buffer.from(JSON.stringify(body));
    const { status, text } = await new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = this.transport.request(
        `${this.base.href}${path}`,
        {
          method: "POST",
          agent: this.agent,
          headers: { ...this.headers, "Content-Length": String(payload.length) },
          signal,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("end", () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") }));
          res.on("error", reject);
        },
      );
      req.on("error", reject);
      req.end(payload);
    });
    let json: unknown = null;
    try {
      json = text.length > 0 ? JSON.parse(text) : null;
    } catch {
      throw new WorkerProtocolError(status, null, `non-JSON response from ${path}: ${text.slice(0, 200)}`, text);
    }
    if (status < 200 || status >= 300) {
      const err = errorBodySchema.safeParse(json);
      const reason = err.success ? (err.data.reason ?? null) : null;
      const message = err.success ? (err.data.error ?? err.data.message ?? `HTTP ${status}`) : `HTTP ${status}`;
      throw new WorkerProtocolError(status, reason, `${path}: ${message}${reason ? ` (${reason})` : ""}`, json);
    }
    return schema.parse(json);
  }

  /** Closes idle keep-alive connections so the process can exit. */
  close(): void {
    this.agent.destroy();
  }
}
