/**
 * `npm start`: the console on http://localhost:3000. With DW_SERVER_URL unset it first starts the
 * embedded Durable-Workflow-compatible server with the demo fleet (data persisted under .data/),
 * so a fresh machine shows a live fleet with one command. With DW_SERVER_URL set, only the console.
 * The production build is made on first start (and again whenever sources are newer than it).
 */
import { spawn, spawnSync } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseAuthSettings } from "../lib/server/auth/settings";
import { launcherBindHost } from "../lib/server/process/bind";
import { distDir } from "../lib/http/dist-dir";
import { compressStatic } from "./compress-static";
import { shutdownGraceMs } from "../lib/server/process/shutdown-grace";
import { TOKEN_VARIABLES } from "../server/http/control-plane/config";
import { readTokensFile, tokensFilePath } from "../server/http/embedded-tokens";
import {
  START_NONCE_VARIABLE,
  checkEmbeddedServer,
  newStartNonce,
  portAcceptsConnections,
} from "../server/start-proof";

const root = join(__dirname, "..");
const kb = (bytes: number) => `${Math.round(bytes / 1024)} KB`;
const consolePort = Number(process.env.PORT ?? 3000);
// A console that can terminate workflows is reachable from other machines only behind its own
// access control: the *parsed* auth mode decides, so BREAKWATER_AUTH=none (or an auth setting the
// console will refuse) listens on loopback whatever BREAKWATER_HOST says. The console itself also
// refuses an open bind without auth (lib/server/process/startup.ts).
const parsedAuth = parseAuthSettings(process.env);
const consoleAuth = "settings" in parsedAuth ? parsedAuth.settings.mode : "none";
const consoleHost = launcherBindHost(process.env);
const embeddedPort = Number(process.env.DW_EMBEDDED_PORT ?? 8080);
const children: ChildProcess[] = [];

function newestMtime(dir: string): number {
  let newest = 0;
  if (!existsSync(dir)) return newest;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(p) : statSync(p).mtimeMs);
  }
  return newest;
}

function buildIsStale(): boolean {
  const stamp = join(root, distDir(), "BUILD_ID");
  if (!existsSync(stamp)) return true;
  const built = statSync(stamp).mtimeMs;
  const sources = ["app", "components", "lib", "messages", "public"].map((d) => newestMtime(join(root, d)));
  const configs = ["next.config.ts", "package.json", "postcss.config.mjs"].map((f) =>
    existsSync(join(root, f)) ? statSync(join(root, f)).mtimeMs : 0,
  );
  return Math.max(...sources, ...configs) > built;
}

async function waitFor(url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      const res = await fetch(url);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${url} did not answer within ${timeoutMs / 1000} s`);
}

function spawnChild(
  cmd: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  onExit: (code: number | null, signal: string | null) => void,
): ChildProcess {
  const child = spawn(cmd, args, { cwd: root, env, stdio: "inherit" });
  children.push(child);
  child.on("exit", (code, signal) => {
    children.splice(children.indexOf(child), 1);
    if (!stopping) onExit(code, signal);
  });
  return child;
}

/** The console: when it exits, Breakwater stops. */
function run(cmd: string, args: string[], env: NodeJS.ProcessEnv): ChildProcess {
  return spawnChild(cmd, args, env, (code, signal) => {
    console.error(`${args.join(" ")} exited (${signal ?? code}); stopping Breakwater.`);
    stop(code ?? 1);
  });
}

const RESTART_BACKOFF_MS = { first: 1_000, max: 30_000, healthyAfter: 60_000 } as const;

/**
 * The embedded server is restarted when it dies, with a doubling delay (reset once it stayed up a
 * minute); the console stays up meanwhile and shows the server as unreachable (issue 15). The demo
 * fleet resumes on the same data file instead of seeding again (server/demo/fleet-state.ts).
 */
function superviseServer(args: string[], env: NodeJS.ProcessEnv): void {
  let delay: number = RESTART_BACKOFF_MS.first;
  const launch = (): void => {
    const startedAt = Date.now();
    const child = spawnChild(process.execPath, args, env, (code, signal) => {
      if (Date.now() - startedAt >= RESTART_BACKOFF_MS.healthyAfter) delay = RESTART_BACKOFF_MS.first;
      console.error(
        `The embedded Durable Workflow server exited (${signal ?? code}); the console stays up, restarting the server in ${delay / 1000} s.`,
      );
      setTimeout(() => {
        if (!stopping) launch();
      }, delay);
      delay = Math.min(delay * 2, RESTART_BACKOFF_MS.max);
    });
    console.log(`Embedded Durable Workflow server started (pid ${child.pid ?? "?"}).`);
  };
  launch();
}

const isSet = (name: string): boolean => (process.env[name] ?? "").trim() !== "";

/**
 * The embedded server's environment. A console token the user set (DW_TOKEN) with nothing set for
 * the server becomes the server's shared token, so the console's own credential is accepted.
 */
function embeddedServerEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const serverConfigured = isSet("DW_AUTH_DRIVER") || TOKEN_VARIABLES.some(isSet);
  // The console is this server's gateway: it records the signed-in person the console names (decision 0058).
  const own = {
    ...env,
    DW_EMBEDDED_PORT: String(embeddedPort),
    DW_TRUST_FORWARDED_ATTRIBUTION_HEADERS: env.DW_TRUST_FORWARDED_ATTRIBUTION_HEADERS ?? "true",
  };
  if (serverConfigured || !isSet("DW_TOKEN")) return own;
  return { ...own, DW_AUTH_TOKEN: process.env.DW_TOKEN };
}

/**
 * The console's credential for the embedded server: with no auth or token variable set, the server
 * made its own tokens beside its data file (decision 0043), and the console is given the admin and
 * operator ones (it acts as admin without console auth). Never printed.
 */
function consoleTokens(): Record<string, string> {
  if (isSet("DW_AUTH_DRIVER") || isSet("DW_TOKEN") || TOKEN_VARIABLES.some(isSet)) return {};
  const dataFile = resolve(root, process.env.DW_EMBEDDED_DATA ?? ".data/breakwater.db");
  const tokens = readTokensFile(tokensFilePath(dataFile));
  return { DW_ADMIN_TOKEN: tokens.admin, DW_OPERATOR_TOKEN: tokens.operator };
}

let stopping = false;
const killAfterMs = shutdownGraceMs(process.env) + 10_000;
function stop(code: number): void {
  stopping = true;
  for (const c of children) if (c.exitCode === null) c.kill("SIGTERM");
  const exitWhenChildrenGone = setInterval(() => {
    if (children.every((c) => c.exitCode !== null || c.signalCode !== null)) process.exit(code);
  }, 100);
  // The console drains for up to its grace (BREAKWATER_SHUTDOWN_GRACE_SECONDS) and exits 0 itself.
  setTimeout(() => {
    clearInterval(exitWhenChildrenGone);
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
    process.exit(code);
  }, killAfterMs);
}
process.on("SIGINT", () => stop(0));
process.on("SIGTERM", () => stop(0));

async function main(): Promise<void> {
  const env: NodeJS.ProcessEnv = { ...process.env, NEXT_TELEMETRY_DISABLED: "1" };
  let serverUrl = process.env.DW_SERVER_URL;
  let credentials: Record<string, string> = {};
  if (!serverUrl) {
    serverUrl = `http://127.0.0.1:${embeddedPort}`;
    // Whoever answers on the port gets the admin token, so it must be our child (decision 0043).
    const taken = `Port ${embeddedPort} on 127.0.0.1`;
    const movePort = "set DW_EMBEDDED_PORT to a free port, or stop what listens there";
    if (await portAcceptsConnections(embeddedPort))
      throw new Error(`${taken} is already in use, so the embedded server cannot start there: ${movePort}.`);
    const nonce = newStartNonce();
    superviseServer(["--import", "tsx", "server/main.ts", "--demo"], {
      ...embeddedServerEnv(env),
      [START_NONCE_VARIABLE]: nonce,
    });
    await waitFor(`${serverUrl}/api/health`, 60_000);
    const check = await checkEmbeddedServer(serverUrl, nonce);
    if (!check.ok)
      throw new Error(`${taken}: ${check.reason}; not starting the console with its admin token — ${movePort}.`);
    credentials = consoleTokens();
    console.log(`Embedded Durable Workflow server with the demo fleet: ${serverUrl}`);
  }
  if (buildIsStale()) {
    console.log("Building the console (first start, or sources changed)…");
    const build = spawnSync(process.execPath, [join(root, "node_modules", "next", "dist", "bin", "next"), "build"], {
      cwd: root,
      env,
      stdio: "inherit",
    });
    if (build.status !== 0) {
      console.error("next build failed");
      stop(1);
      return;
    }
    // The compressed copies the console serves its script and style files from (decision 0037).
    // Without them Next.js compresses each file per request, as before: worth a warning, not a stop.
    await compressStatic(join(root, distDir())).then(
      ({ files, raw, br }) => console.log(`Compressed ${files} script and style files: ${kb(raw)} → ${kb(br)} brotli.`),
      (error: unknown) => console.warn(`Could not compress the static files (${String(error)}); Next.js will.`),
    );
  }
  run(
    process.execPath,
    [join(root, "node_modules", "next", "dist", "bin", "next"), "start", "-p", String(consolePort), "-H", consoleHost],
    {
      ...env,
      ...credentials,
      DW_SERVER_URL: serverUrl,
    },
  );
  await waitFor(`http://127.0.0.1:${consolePort}/api/healthz`, 60_000);
  console.log(`Breakwater console: http://localhost:${consolePort}  (talking to ${serverUrl})`);
  if (consoleAuth !== "none") console.log(`Console authentication: ${consoleAuth}; listening on ${consoleHost}.`);
  else console.log("The console listens on 127.0.0.1 only: no console authentication is configured (BREAKWATER_AUTH).");
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  stop(1);
});
