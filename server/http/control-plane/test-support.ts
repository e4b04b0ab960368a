import type { AuthConfig } from "../auth";
import type { Harness } from "../test-support";
import { startHarness } from "../test-support";

/**
 * Control-plane test scaffolding (not a test file): the real app on 127.0.0.1:0 over a SQLite file
 * in a temp dir, a FakeClock, short long-poll holds, and a small HTTP client that sends the
 * control-plane headers. Workers are driven with the engine suite's `ScriptedWorker`.
 */
export type CpHarness = Harness;

/** The engine suites' harness with the control plane's short long-poll holds. */
export function startCpHarness(opts: { auth?: AuthConfig; historyPollTimeoutMs?: number } = {}): Promise<CpHarness> {
  return startHarness({ auth: opts.auth, pollTimeoutMs: 100, historyPollTimeoutMs: opts.historyPollTimeoutMs ?? 300 });
}

/** Response JSON as tests read it: any path can be indexed, and the assertion checks the value. */
export interface JsonTree {
  [key: string]: JsonTree;
  [index: number]: JsonTree;
}

/** A JSON array of the response as a real array. */
export function list(v: JsonTree | undefined): JsonTree[] {
  if (!Array.isArray(v)) throw new Error(`expected an array, got ${JSON.stringify(v)}`);
  return v as JsonTree[];
}

export interface CpResponse {
  status: number;
  headers: Headers;
  body: JsonTree;
  raw: string;
}

export interface CpRequest {
  method?: string;
  body?: unknown;
  rawBody?: string;
  headers?: Record<string, string>;
  token?: string;
  namespace?: string;
  version?: string | null;
}

/** One control-plane request; sends version 2 and JSON unless told otherwise. */
export async function cp(url: string, path: string, req: CpRequest = {}): Promise<CpResponse> {
  const headers: Record<string, string> = { accept: "application/json", ...(req.headers ?? {}) };
  if (req.version !== null) headers["x-durable-workflow-control-plane-version"] = req.version ?? "2";
  if (req.token) headers.authorization = `Bearer ${req.token}`;
  if (req.namespace) headers["x-namespace"] = req.namespace;
  let body: string | undefined = req.rawBody;
  if (req.body !== undefined) {
    body = JSON.stringify(req.body);
    headers["content-type"] ??= "application/json";
  }
  const res = await fetch(`${url}/api${path}`, {
    method: req.method ?? (body !== undefined ? "POST" : "GET"),
    headers,
    body,
  });
  const raw = await res.text();
  let parsed: JsonTree = {};
  try {
    parsed = raw ? (JSON.parse(raw) as JsonTree) : {};
  } catch {
    parsed = {};
  }
  return { status: res.status, headers: res.headers, body: parsed, raw };
}

export function wf(id: string): string {
  return encodeURIComponent(id);
}
