import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { join } from "node:path";

/**
 * Test support: `server/main.ts --demo` as a real child process (so it can be SIGKILLed), and a
 * small control-plane client for talking to it. Used by crash-under-load.test.ts.
 */

const ROOT = join(__dirname, "..", "..");

/** Role tokens the demo server is started with: its fleet uses worker and operator, `ControlPlane` admin. */
export const DEMO_TOKENS = {
  worker: "demo-process-worker-token",
  operator: "demo-process-operator-token",
  admin: "demo-process-admin-token",
} as const;

export interface SeededRun {
  name: string;
  workflowId: string;
  runId: string;
}

export interface DemoProcess {
  readonly child: ChildProcess;
  readonly url: string;
  /** The fleet's seeded scenarios, parsed from its `[demo] seeded …` log lines. */
  readonly seeded: SeededRun[];
  readonly exited: Promise<number | null>;
  output(): string;
  /** Resolves once stdout/stderr matched `pattern`; rejects after `timeoutMs` or if the process exits. */
  waitForOutput(pattern: RegExp, timeoutMs: number): Promise<RegExpExecArray>;
}

/**
 * Starts `node --import tsx server/main.ts --demo` on `dataFile` and resolves once the demo fleet
 * has seeded its scenarios. The caller's DW_* variables are dropped so only `env` configures it; the
 * server requires DEMO_TOKENS, so the fleet's own calls go through real role checks.
 */
export async function launchDemoServer(
  dataFile: string,
  env: Record<string, string>,
  readyTimeoutMs: number,
): Promise<DemoProcess> {
  const childEnv: NodeJS.ProcessEnv = { ...process.env };
  for (const k of Object.keys(childEnv)) if (k.startsWith("DW_")) delete childEnv[k];
  Object.assign(
    childEnv,
    {
      DW_EMBEDDED_PORT: "0",
      DW_EMBEDDED_DATA: dataFile,
      DW_WORKER_TOKEN: DEMO_TOKENS.worker,
      DW_OPERATOR_TOKEN: DEMO_TOKENS.operator,
      DW_ADMIN_TOKEN: DEMO_TOKENS.admin,
    },
    env,
  );
  const child = spawn(process.execPath, ["--import", "tsx", "server/main.ts", "--demo"], {
    cwd: ROOT,
    env: childEnv,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  const listeners = new Set<() => void>();
  const onData = (chunk: Buffer): void => {
    out += chunk.toString();
    for (const l of listeners) l();
  };
  child.stdout?.on("data", onData);
  child.stderr?.on("data", onData);
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));

  const waitForOutput = (pattern: RegExp, timeoutMs: number): Promise<RegExpExecArray> =>
    new Promise((resolve, reject) => {
      const check = (): boolean => {
        const m = pattern.exec(out);
        if (!m) return false;
        done();
        resolve(m);
        return true;
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`no ${String(pattern)} within ${timeoutMs} ms; output:\n${out.slice(-4000)}`));
      }, timeoutMs);
      const onExit = (code: number | null): void => {
        done();
        reject(new Error(`server exited (${String(code)}) before ${String(pattern)}; output:\n${out.slice(-4000)}`));
      };
      const listener = (): void => void check();
      const done = (): void => {
        clearTimeout(timer);
        listeners.delete(listener);
        child.off("exit", onExit);
      };
      if (check()) return;
      listeners.add(listener);
      child.once("exit", onExit);
    });

  const listening = await waitForOutput(/listening on (http:\/\/[\d.:]+)/, readyTimeoutMs);
  await waitForOutput(/demo fleet running/, readyTimeoutMs);
  const url = listening[1] as string;
  const seeded = [...out.matchAll(/\[demo\] seeded (\w+): (\S+) \((\S+)\)/g)].map((m) => ({
    name: m[1] as string,
    workflowId: m[2] as string,
    runId: m[3] as string,
  }));
  // The lost-transport run is seeded without a `seeded` line; its log line names only the workflow.
  const lost = /\[demo\] lost transport of (\S+):/.exec(out);
  if (lost?.[1]) {
    const current = await new ControlPlane(url).call("GET", `/workflows/${encodeURIComponent(lost[1])}`);
    seeded.push({ name: "lost_transport", workflowId: lost[1], runId: String(current.body.run_id) });
  }
  return { child, url, seeded, exited, output: () => out, waitForOutput };
}

export interface ApiAnswer {
  status: number;
  body: Record<string, unknown>;
}

export interface HistoryEvent {
  sequence: number;
  event_type: string;
  timestamp: string;
  payload: unknown;
}

/** The parts of `GET …/debug` the crash test reads. */
export interface RunDebug {
  execution: { status: string; is_terminal: boolean; liveness_state: string; wait_kind?: string };
  pending_workflow_tasks: { task_type: string; status: string; repair_count?: number; timer_id?: string }[];
}

export interface ListedRun {
  workflow_id: string;
  run_id: string;
  workflow_type: string;
  status: string;
  is_terminal: boolean;
}

/**
 * Control-plane calls against whichever server is current (`url` changes on restart). Network
 * errors throw; any HTTP answer is returned with its status so callers decide what counts as an
 * acknowledgement.
 */
export class ControlPlane {
  constructor(
    public url: string,
    private readonly token: string = DEMO_TOKENS.admin,
  ) {}

  async call(method: "GET" | "POST", path: string, body?: unknown): Promise<ApiAnswer> {
    const res = await fetch(`${this.url}/api${path}`, {
      method,
      headers: {
        Accept: "application/json",
        "X-Durable-Workflow-Control-Plane-Version": "2",
        Authorization: `Bearer ${this.token}`,
        ...(body === undefined ? {} : { "Content-Type": "application/json" }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(15_000),
    });
    const text = await res.text();
    return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
  }

  start(workflowId: string, workflowType: string, input: unknown[]): Promise<ApiAnswer> {
    return this.call("POST", "/workflows", {
      workflow_id: workflowId,
      workflow_type: workflowType,
      task_queue: "default",
      input,
    });
  }

  signal(workflowId: string, name: string, input: unknown[], requestId: string): Promise<ApiAnswer> {
    return this.call("POST", `/workflows/${encodeURIComponent(workflowId)}/signal/${encodeURIComponent(name)}`, {
      input,
      request_id: requestId,
    });
  }

  repair(workflowId: string, requestId: string): Promise<ApiAnswer> {
    return this.call("POST", `/workflows/${encodeURIComponent(workflowId)}/repair`, { request_id: requestId });
  }

  async describeRun(workflowId: string, runId: string): Promise<Record<string, unknown>> {
    const r = await this.call("GET", `/workflows/${encodeURIComponent(workflowId)}/runs/${encodeURIComponent(runId)}`);
    if (r.status !== 200) throw new Error(`describe ${workflowId}/${runId}: HTTP ${r.status}`);
    return r.body;
  }

  async debugRun(workflowId: string, runId: string): Promise<RunDebug> {
    const r = await this.call(
      "GET",
      `/workflows/${encodeURIComponent(workflowId)}/runs/${encodeURIComponent(runId)}/debug`,
    );
    if (r.status !== 200) throw new Error(`debug ${workflowId}/${runId}: HTTP ${r.status}`);
    return r.body as unknown as RunDebug;
  }

  /** Every run in the namespace (all pages of `GET /workflows`). */
  async listRuns(): Promise<ListedRun[]> {
    const runs: ListedRun[] = [];
    let token: string | null = null;
    do {
      const q: string = token ? `&next_page_token=${encodeURIComponent(token)}` : "";
      const r = await this.call("GET", `/workflows?page_size=200${q}`);
      if (r.status !== 200) throw new Error(`list: HTTP ${r.status}`);
      runs.push(...(r.body.workflows as ListedRun[]));
      token = (r.body.next_page_token as string | null) ?? null;
    } while (token);
    return runs;
  }

  /** A run's whole history, in sequence order. */
  async history(workflowId: string, runId: string): Promise<HistoryEvent[]> {
    const events: HistoryEvent[] = [];
    let token: string | null = null;
    do {
      const q: string = token ? `&next_page_token=${encodeURIComponent(token)}` : "";
      const r = await this.call(
        "GET",
        `/workflows/${encodeURIComponent(workflowId)}/runs/${encodeURIComponent(runId)}/history?page_size=1000${q}`,
      );
      if (r.status !== 200) throw new Error(`history ${workflowId}/${runId}: HTTP ${r.status}`);
      events.push(...(r.body.events as HistoryEvent[]));
      token = (r.body.next_page_token as string | null) ?? null;
    } while (token);
    return events;
  }
}
