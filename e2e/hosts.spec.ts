import { spawn } from "node:child_process";
import { request as httpRequest } from "node:http";
import { expect, test } from "@playwright/test";
import { freePort, runStatus, startConsole, startRun } from "./operator-fixtures";

/**
 * Holes 1, 2 and weak spots 4, 7, 8 of issue 11, end to end in Chromium against production builds:
 *  - DNS rebinding: playwright.config.ts maps rebind.attacker.test (and console.allowed.test) to
 *    127.0.0.1 with a host-resolver rule, as an attacker's name resolves after rebinding;
 *  - the console's own refusal of an open bind without auth;
 *  - repeated identity headers from a trusted proxy;
 *  - inputs that used to answer 500.
 */

const dwHost = process.env.E2E_DW_HOST ?? "";
const proxyEnv = {
  BREAKWATER_AUTH: "proxy",
  BREAKWATER_TRUSTED_PROXIES: "127.0.0.1,::1",
  BREAKWATER_ROLE_GROUPS: "admin:ops-admins,viewer:readers",
};

test.describe.configure({ mode: "serial" });
test.skip(!dwHost, "no Durable Workflow server for e2e");

function portOf(baseURL: string | undefined): string {
  return new URL(baseURL ?? "http://127.0.0.1:3100").port;
}

test("a DNS-rebinding page can neither read the fleet nor terminate a run on a no-auth console", async ({
  page,
  baseURL,
}) => {
  const workflowId = `rebind-victim-${Date.now()}`;
  const runId = await startRun("OpsLongWaitWorkflow", workflowId, []);
  const attackerPage = `http://rebind.attacker.test:${portOf(baseURL)}/`;

  const landing = await page.goto(attackerPage);
  expect(landing?.status()).toBe(421);
  await expect(page.locator("body")).toContainText('does not answer to the host "rebind.attacker.test');
  // The attack as the red team ran it: same-origin fetches from the attacker's page (no preflight).
  const statuses = await page.evaluate(
    async ({ workflowId, runId }) => {
      const read = await fetch("/api/dw/workflows");
      const terminate = await fetch("/api/actions/runs", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ action: "terminate", workflowId, runId, requestId: "rebind-attack-1", reason: "pwned" }),
      });
      // The health check answers any name ({"ok":true} and nothing else), for probes that use an IP.
      const health = await fetch("/api/healthz");
      return { read: read.status, terminate: terminate.status, body: await terminate.json(), health: health.status };
    },
    { workflowId, runId },
  );
  expect(statuses).toMatchObject({ read: 421, terminate: 421, body: { reason: "host_not_allowed" }, health: 200 });
  expect(await runStatus(workflowId, runId)).not.toBe("terminated");

  // The console at its own names still answers.
  expect((await page.goto(`http://localhost:${portOf(baseURL)}/runs`))?.status()).toBe(200);
});

test("in proxy mode trusting a co-located proxy, a rebinding page cannot forge groups and run an admin pass", async ({
  page,
}) => {
  test.setTimeout(90_000);
  const app = await startConsole(proxyEnv);
  try {
    await page.goto(`http://rebind.attacker.test:${portOf(app.baseUrl)}/`);
    const status = await page.evaluate(async () => {
      const pass = await fetch("/api/actions/system/repair-pass", {
        method: "POST",
        headers: { "X-Forwarded-User": "mallory", "X-Forwarded-Groups": "ops-admins" },
      });
      return pass.status;
    });
    expect(status).toBe(421);
  } finally {
    await app.stop();
  }
});

test("a name in BREAKWATER_ALLOWED_HOSTS is served, and the CSRF check accepts its own pages' requests", async ({
  page,
}) => {
  test.setTimeout(90_000);
  const app = await startConsole({ BREAKWATER_ALLOWED_HOSTS: "console.allowed.test" });
  try {
    const port = portOf(app.baseUrl);
    expect((await page.goto(`http://console.allowed.test:${port}/runs`))?.status()).toBe(200);
    const answer = await page.evaluate(async () => {
      const response = await fetch("/api/actions/runs", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: "{}",
      });
      return { status: response.status, body: (await response.json()) as { reason: string } };
    });
    // Past the same-origin check; refused only for the empty body.
    expect(answer).toMatchObject({ status: 400, body: { reason: "invalid_request" } });
    expect((await page.goto(`http://rebind.attacker.test:${port}/runs`))?.status()).toBe(421);
  } finally {
    await app.stop();
  }
});

/** A raw request whose headers may repeat (an array value goes out as that many header lines). */
function rawPost(
  baseUrl: string,
  path: string,
  headers: Record<string, string | string[]>,
): Promise<{ status: number; body: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${baseUrl}${path}`, { method: "POST" }, (res) => {
      let text = "";
      res.on("data", (chunk: Buffer) => (text += chunk.toString()));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as Record<string, unknown> }));
    });
    for (const [name, value] of Object.entries(headers)) req.setHeader(name, value);
    req.on("error", reject);
    req.end();
  });
}

test("a repeated identity header from the trusted proxy is refused, not merged into more groups", async () => {
  test.setTimeout(90_000);
  const app = await startConsole(proxyEnv);
  try {
    const base = { Origin: app.baseUrl, "X-Forwarded-User": "vic", "Content-Length": "0" };
    const twice = await rawPost(app.baseUrl, "/api/actions/system/repair-pass", {
      ...base,
      "X-Forwarded-Groups": ["readers", "ops-admins"],
    });
    // Merged, "readers, ops-admins" made vic an admin who could run the repair pass.
    expect(twice).toMatchObject({
      status: 400,
      body: { reason: "repeated_header", message: expect.stringContaining("x-forwarded-groups") },
    });
    const once = await rawPost(app.baseUrl, "/api/actions/system/repair-pass", {
      ...base,
      "X-Forwarded-Groups": "readers",
    });
    expect(once).toMatchObject({ status: 403, body: { reason: "role" } });
  } finally {
    await app.stop();
  }
});

/** Starts `next start` with these arguments and waits for it to exit (it should refuse to serve). */
function startAndWaitForExit(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn("npx", ["next", "start", ...args], {
      env: {
        ...process.env,
        NEXT_TELEMETRY_DISABLED: "1",
        DW_SERVER_URL: `http://${dwHost}`,
        BREAKWATER_AUTH: "",
        ...env,
      },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    const timer = setTimeout(() => {
      if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
      reject(new Error(`next start ${args.join(" ")} was still running after 60 s:\n${output}`));
    }, 60_000);
    child.on("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

test("without console auth the console refuses to serve when bound beyond loopback", async () => {
  test.setTimeout(150_000);
  // `npx next start` without -H listens on every interface; so does -H 0.0.0.0.
  for (const [args, env] of [
    [["-H", "0.0.0.0"], { BREAKWATER_AUTH: "none" }],
    [[], {}],
  ] as const) {
    const port = String(await freePort());
    const result = await startAndWaitForExit(["-p", port, ...args], env);
    expect(result.code, result.output).toBe(1);
    expect(result.output).toMatch(
      /Refusing to serve: no console authentication \(BREAKWATER_AUTH\) and listening on .*:\d+, beyond loopback/,
    );
  }
});

test("inputs that used to answer 500 get a clear 4xx", async ({ request, baseURL }) => {
  const origin = baseURL ?? "";
  const malformed = await request.get("/workflows/%ZZ");
  expect(malformed.status()).toBe(400);
  expect(await malformed.text()).toContain("not valid percent-encoded UTF-8");
  const overlong = await request.get("/api/dw/workflows/%C0%AF");
  expect(overlong.status()).toBe(400);
  expect(await overlong.json()).toMatchObject({ reason: "invalid_path" });
  // No console auth: /login goes to `next`, which must be a valid Location.
  const login = await request.get(`/login?next=${encodeURIComponent("/中文")}`, { maxRedirects: 0 });
  expect(login.status()).toBeLessThan(400);
  expect(login.headers().location).toContain("/%E4%B8%AD%E6%96%87");

  const deep = `${"[".repeat(5000)}${"]".repeat(5000)}`;
  const signal = await request.post("/api/actions/runs", {
    headers: { Origin: origin, "content-type": "application/json" },
    data: `{"action":"signal","workflowId":"wf","runId":"run","requestId":"req-deep-e2e","signalName":"go","input":[${deep}]}`,
  });
  expect(signal.status()).toBe(400);
  expect(await signal.json()).toMatchObject({
    reason: "invalid_request",
    message: expect.stringContaining("nests deeper than 64 levels"),
  });
});
