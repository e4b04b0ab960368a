import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defineConfig, devices } from "@playwright/test";
import type { PlaywrightTestConfig, ReporterDescription } from "@playwright/test";

/**
 * E2E against real Chromium (Debian's, never a downloaded one), a production build of the console
 * (`npm run build` must run first: `next build`, then the compressed copies of its static files)
 * and a real Durable Workflow server:
 *  - E2E_DW_SERVER_URL set: that server (it must accept the E2E token);
 *  - else, if server/main.ts exists: the embedded server on a fresh temp database, without demo data.
 * The console holds E2E_TOKEN (default: the canary the token-leak spec hunts for) and the embedded
 * server is started requiring it, so "connected" proves the token travelled server-side only.
 */
const CONSOLE_PORT = Number(process.env.E2E_PORT ?? 3100);
const DW_PORT = Number(process.env.E2E_DW_PORT ?? 18080);
const E2E_TOKEN = process.env.E2E_TOKEN ?? "bw-secret-token-canary";
// Specs that drive scenarios run an SDK worker against the embedded server with this worker-role token.
const E2E_WORKER_TOKEN = process.env.E2E_WORKER_TOKEN ?? "bw-e2e-worker-token";

// The Kikwiflow test host (engines/kikwiflow-host, built by scripts/kikwiflow.sh, which scripts/test.sh
// exports as KIKWIFLOW_HOST_JAR); without a jar there is no engine and e2e/kikwiflow.spec.ts fails.
const KIKWIFLOW_PORT = Number(process.env.E2E_KIKWIFLOW_PORT ?? DW_PORT + 1000);
const kikwiflowJar = process.env.KIKWIFLOW_HOST_JAR ?? join(__dirname, ".cache", "kikwiflow-host.jar");
const kikwiflowJava =
  process.env.KIKWIFLOW_JAVA ??
  (existsSync("/usr/lib/jvm/temurin-25-jdk-amd64/bin/java") ? "/usr/lib/jvm/temurin-25-jdk-amd64/bin/java" : "java");
const kikwiflowUrl = existsSync(kikwiflowJar) ? `http://127.0.0.1:${KIKWIFLOW_PORT}` : undefined;

const externalServer = process.env.E2E_DW_SERVER_URL;
const embeddedServer = !externalServer && existsSync(join(__dirname, "server", "main.ts"));
const serverUrl = externalServer ?? (embeddedServer ? `http://127.0.0.1:${DW_PORT}` : undefined);

// Workers re-evaluate this file; the env var keeps one data directory per run.
process.env.E2E_DATA_DIR ??= mkdtempSync(join(tmpdir(), "breakwater-e2e-"));
// The specs read these to know what to expect.
process.env.E2E_DW_HOST = serverUrl ? new URL(serverUrl).host : "";
process.env.E2E_TOKEN = E2E_TOKEN;
process.env.E2E_WORKER_TOKEN = E2E_WORKER_TOKEN;
process.env.E2E_KIKWIFLOW_URL = kikwiflowUrl ?? "";

const reporter: ReporterDescription[] = [["list"]];
if (process.env.PLAYWRIGHT_JSON_OUTPUT_NAME)
  reporter.push(["json", { outputFile: process.env.PLAYWRIGHT_JSON_OUTPUT_NAME }]);

const webServer: NonNullable<PlaywrightTestConfig["webServer"]> = [];
if (embeddedServer) {
  webServer.push({
    // e2e/run-view-seed.ts first writes the long runs of e2e/run-view.spec.ts into the fresh file
    // (thousands of events: too many to make through a worker in a spec), before the server opens it.
    command:
      "node --import tsx e2e/run-view-seed.ts && node --import tsx e2e/retention-seed.ts && node --import tsx server/main.ts",
    url: `http://127.0.0.1:${DW_PORT}/api/health`,
    reuseExistingServer: false,
    timeout: 60_000,
    stdout: "ignore",
    stderr: "pipe",
    env: {
      DW_EMBEDDED_PORT: String(DW_PORT),
      DW_EMBEDDED_DATA: join(process.env.E2E_DATA_DIR, "dw.sqlite"),
      DW_ADMIN_TOKEN: E2E_TOKEN,
      DW_WORKER_TOKEN: E2E_WORKER_TOKEN,
      // Stuck runs stay stuck until the console repairs them (the repair specs need a stable repair_needed run).
      DW_AUTO_REPAIR: "0",
      DW_AUTH_DRIVER: "token",
      // The console is the gateway: the server records the person it names (decision 0058).
      DW_TRUST_FORWARDED_ATTRIBUTION_HEADERS: "true",
    },
  });
}
if (kikwiflowUrl) {
  webServer.push({
    // Same JVM flags as lib/kikwiflow/engine-host.ts: a small heap and one JIT tier on shared cores.
    command: `${kikwiflowJava} -Xmx256m -XX:TieredStopAtLevel=1 -jar ${kikwiflowJar} --server.port=${KIKWIFLOW_PORT}`,
    // Ready once the host's process definitions are deployed (the last step of its start-up).
    url: `${kikwiflowUrl}/kikwiflow/api/v1/process-definitions/one-by-key/kiki-fatal`,
    reuseExistingServer: false,
    timeout: 120_000,
    stdout: "ignore",
    stderr: "pipe",
  });
}
webServer.push({
  command: `npx next start -p ${CONSOLE_PORT} -H 127.0.0.1`,
  url: `http://127.0.0.1:${CONSOLE_PORT}/api/healthz`,
  reuseExistingServer: !process.env.CI,
  timeout: 60_000,
  stdout: "ignore",
  stderr: "pipe",
  env: {
    NEXT_TELEMETRY_DISABLED: "1",
    // Unset would mean "the embedded server on 8080"; point at the e2e server or at a closed port.
    DW_SERVER_URL: serverUrl ?? "http://127.0.0.1:9",
    DW_TOKEN: E2E_TOKEN,
    DW_NAMESPACE: "default",
    ...(kikwiflowUrl ? { KIKWIFLOW_URL: kikwiflowUrl } : {}),
  },
});

export default defineConfig({
  testDir: "./e2e",
  outputDir: process.env.E2E_OUTPUT_DIR ?? "./test-results/artifacts",
  // Generous: the 2-core machine also builds and runs the embedded server while these run.
  timeout: 45_000,
  expect: { timeout: 10_000 },
  retries: process.env.CI ? 1 : 0,
  workers: 1,
  reporter,
  use: {
    baseURL: `http://127.0.0.1:${CONSOLE_PORT}`,
    trace: "retain-on-failure",
    locale: "en-US",
    timezoneId: "UTC",
    colorScheme: "light",
  },
  projects: [
    {
      name: "chromium",
      use: {
        ...devices["Desktop Chrome"],
        launchOptions: {
          executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
          args: [
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            "--disable-quic",
            // DNS rebinding without DNS (e2e/hosts.spec.ts): these names resolve to 127.0.0.1, as an
            // attacker's name would after rebinding; the console must answer only its own names.
            "--host-resolver-rules=MAP rebind.attacker.test 127.0.0.1, MAP console.allowed.test 127.0.0.1",
          ],
        },
      },
    },
  ],
  webServer,
});
