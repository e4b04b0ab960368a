import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";

/**
 * Starts the Kikwiflow test host (engines/kikwiflow-host, built by scripts/kikwiflow.sh) as a child
 * process on a free port, for tests that must talk to the real engine over HTTP. Node-only.
 */

/** The process definitions the host deploys (engines/kikwiflow-host/src/main/resources/processes). */
export const HOST_PROCESS_KEYS = [
  "kiki-await-review",
  "kiki-business-error",
  "kiki-exhausted-backoff",
  "kiki-fatal",
  "kiki-fatal-mirror",
  "kiki-flaky-linear",
] as const;

const TEMURIN_25 = "/usr/lib/jvm/temurin-25-jdk-amd64";

export interface KikwiflowHost {
  /** Engine root, e.g. `http://127.0.0.1:40123` (the REST lives under /kikwiflow/api/v1). */
  readonly baseUrl: string;
  /** Wall time from spawn until every process definition was deployed. */
  readonly startupMs: number;
  /** The JVM's own process id, for tests that kill or freeze the engine (SIGKILL, SIGSTOP). */
  readonly pid: number;
  /** What the JVM printed so far (for failure messages). */
  output(): string;
  stop(): Promise<void>;
}

export interface StartHostOptions {
  /** Path to kikwiflow-host.jar; default KIKWIFLOW_HOST_JAR. */
  jar?: string;
  /** Java >= 21; default KIKWIFLOW_JAVA, else Temurin 25 when installed, else `java` on PATH. */
  java?: string;
  /** Bound on start-up (JVM + Spring + auto-deploy); default 120 s on a busy 2-core machine. */
  timeoutMs?: number;
  /** Port to bind; default 0, any free one. */
  port?: number;
}

/** The jar tests must run against; throws (never skips) when it is not there. */
export function requireHostJar(jar = process.env.KIKWIFLOW_HOST_JAR): string {
  if (!jar) {
    throw new Error(
      "KIKWIFLOW_HOST_JAR is not set: build the host with `bash scripts/kikwiflow.sh` and export its last line " +
        "(scripts/test.sh does both)",
    );
  }
  if (!existsSync(jar)) throw new Error(`KIKWIFLOW_HOST_JAR points at a missing file: ${jar}`);
  return jar;
}

export function defaultJava(): string {
  if (process.env.KIKWIFLOW_JAVA) return process.env.KIKWIFLOW_JAVA;
  const temurin = join(TEMURIN_25, "bin", "java");
  return existsSync(temurin) ? temurin : "java";
}

/** Spring Boot logs the port Tomcat bound when `server.port=0` asked for any free one. */
function portFrom(output: string): number | null {
  const match = /Tomcat started on port(?:\(s\))?:? (\d+)/.exec(output);
  return match?.[1] ? Number(match[1]) : null;
}

async function deployed(baseUrl: string): Promise<boolean> {
  const answers = await Promise.all(
    HOST_PROCESS_KEYS.map((key) =>
      fetch(`${baseUrl}/kikwiflow/api/v1/process-definitions/one-by-key/${key}`, {
        signal: AbortSignal.timeout(2_000),
      }).then(
        (r) => r.ok,
        () => false,
      ),
    ),
  );
  return answers.every(Boolean);
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const kill = setTimeout(() => child.kill("SIGKILL"), 5_000);
    child.once("exit", () => {
      clearTimeout(kill);
      resolve();
    });
    child.kill("SIGTERM");
  });
}

export async function startKikwiflowHost(options: StartHostOptions = {}): Promise<KikwiflowHost> {
  const jar = requireHostJar(options.jar);
  const java = options.java ?? defaultJava();
  const timeoutMs = options.timeoutMs ?? 120_000;
  const started = Date.now();
  // Bounded heap and a single JIT tier keep the JVM small and quick to start on shared cores.
  const args = ["-Xmx256m", "-XX:TieredStopAtLevel=1", "-jar", jar, `--server.port=${options.port ?? 0}`];
  const child = spawn(java, args, {
    env: { ...process.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  let exited: string | null = null;
  child.once("error", (error) => (exited = `could not run ${java}: ${error.message}`));
  child.once("exit", (code, signal) => (exited = `exited with ${code ?? signal}`));

  const deadline = started + timeoutMs;
  try {
    for (;;) {
      if (exited) throw new Error(`Kikwiflow host ${exited}:\n${output.slice(-4000)}`);
      if (Date.now() > deadline)
        throw new Error(`Kikwiflow host not ready within ${timeoutMs} ms:\n${output.slice(-4000)}`);
      const port = portFrom(output);
      if (port !== null && (await deployed(`http://127.0.0.1:${port}`))) {
        const baseUrl = `http://127.0.0.1:${port}`;
        const pid = child.pid ?? -1;
        return { baseUrl, pid, startupMs: Date.now() - started, output: () => output, stop: () => stopChild(child) };
      }
      await new Promise((r) => setTimeout(r, 200));
    }
  } catch (error) {
    await stopChild(child);
    throw error;
  }
}
