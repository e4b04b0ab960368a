import { spawn, spawnSync } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "@playwright/test";
import type { Page, Request } from "@playwright/test";
import { freePort, PASSWORDS, SESSION_SECRET, waitFor, writeUsersFile } from "./operator-fixtures";
import { seededRuns } from "./run-view-seed";
import type { SeededRunViewRuns } from "./run-view-seed";

/**
 * The packaged artifact under a sub-path behind a real reverse proxy (docs/deployment.md, decision 0059):
 * `npm run package` makes ONE build with BREAKWATER_BASE_PATH (its own build folder: the suite's
 * `.next` stays as it is), the tarball is unpacked into an empty temporary folder and started with
 * plain `node server.js`, Debian's nginx is started in front of it with a config of its own under a
 * temporary prefix, and Chromium signs in and opens a run page through nginx. Every request the page
 * makes must stay under the sub-path; redirects, the cookie's Path, the streamed run view and the
 * compressed static files too. The container recipe (Dockerfile) is not exercised here.
 */

const BASE = "/ops/breakwater";
const dwHost = process.env.E2E_DW_HOST ?? "";
const canary = process.env.E2E_TOKEN ?? "bw-secret-token-canary";
const root = join(__dirname, "..");

let work: string;
let origin: string;
const children: ChildProcess[] = [];
let consoleLog = "";

function start(command: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }): ChildProcess {
  const child = spawn(command, args, { ...options, stdio: ["ignore", "pipe", "pipe"] });
  const keep = (chunk: Buffer) => {
    consoleLog = (consoleLog + chunk.toString()).slice(-20_000);
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  children.push(child);
  return child;
}

function nginxConfig(prefix: string, listen: number, upstream: number): string {
  const temp = (name: string) => join(prefix, name);
  return `pid ${temp("nginx.pid")};
error_log ${temp("error.log")} warn;
daemon off;
events { worker_connections 256; }
http {
  access_log off;
  client_body_temp_path ${temp("body")};
  proxy_temp_path ${temp("proxy")};
  fastcgi_temp_path ${temp("fastcgi")};
  uwsgi_temp_path ${temp("uwsgi")};
  scgi_temp_path ${temp("scgi")};
  server {
    listen 127.0.0.1:${listen};
    location ${BASE}/ {
      proxy_pass http://127.0.0.1:${upstream};
      proxy_http_version 1.1;
      proxy_buffering off;
      proxy_read_timeout 120s;
      proxy_set_header Host $http_host;
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
      proxy_set_header X-Forwarded-Proto $scheme;
    }
    location / { return 404 "not the console\\n"; }
  }
}
`;
}

test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  // One extra `next build`, on a loaded 2-core machine.
  test.setTimeout(20 * 60_000);
  if (!dwHost) throw new Error("E2E_DW_HOST is not set: this spec needs the embedded e2e server");
  work = mkdtempSync(join(tmpdir(), "bw-deploy-e2e-"));

  // E2E_PACKAGED_TGZ: a tarball `npm run package` made with BREAKWATER_BASE_PATH=/ops/breakwater (reruns).
  let tarball = process.env.E2E_PACKAGED_TGZ ?? "";
  if (!tarball) {
    const t0 = Date.now();
    const out = join(work, "out", "breakwater");
    const packaged = spawnSync(process.execPath, ["--import", "tsx", "scripts/package.ts", out], {
      cwd: root,
      env: {
        ...process.env,
        BREAKWATER_BASE_PATH: BASE,
        // Beside the suite's build, never over it.
        BREAKWATER_DIST_DIR: `${process.env.BREAKWATER_DIST_DIR || ".next"}-package`,
      },
      encoding: "utf8",
      maxBuffer: 64 * 1024 * 1024,
    });
    if (packaged.status !== 0) throw new Error(`npm run package failed:\n${packaged.stdout}\n${packaged.stderr}`);
    console.log(`npm run package: ${((Date.now() - t0) / 1000).toFixed(0)} s`);
    tarball = `${out}.tgz`;
  }

  // A clean folder that has only the unpacked tarball: no node_modules of the repository nearby.
  const install = join(work, "install");
  mkdirSync(install);
  const untar = spawnSync("tar", ["-xzf", tarball, "-C", install], { encoding: "utf8" });
  if (untar.status !== 0) throw new Error(`tar: ${untar.stderr}`);
  const app = join(install, "breakwater");

  const consolePort = await freePort();
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: work,
    NODE_ENV: "production",
    NEXT_TELEMETRY_DISABLED: "1",
    PORT: String(consolePort),
    HOSTNAME: "127.0.0.1",
    DW_SERVER_URL: `http://${dwHost}`,
    DW_TOKEN: canary,
    DW_NAMESPACE: "default",
    BREAKWATER_AUTH: "password",
    BREAKWATER_USERS_FILE: writeUsersFile(work),
    BREAKWATER_SESSION_SECRET: SESSION_SECRET,
    BREAKWATER_TRUSTED_PROXIES: "127.0.0.1",
  };
  const server = start(process.execPath, ["server.js"], { cwd: app, env });
  await waitFor(
    "the packaged console to answer",
    async () => {
      if (server.exitCode !== null) throw new Error(`node server.js exited (${server.exitCode}):\n${consoleLog}`);
      try {
        return (await fetch(`http://127.0.0.1:${consolePort}${BASE}/api/healthz`)).ok;
      } catch {
        return false;
      }
    },
    60_000,
  );

  const nginxPort = Number(process.env.E2E_NGINX_PORT || (await freePort()));
  const prefix = join(work, "nginx");
  mkdirSync(prefix);
  writeFileSync(join(prefix, "nginx.conf"), nginxConfig(prefix, nginxPort, consolePort));
  const nginx = start(process.env.NGINX_PATH ?? "/usr/sbin/nginx", ["-p", prefix, "-c", join(prefix, "nginx.conf")], {
    cwd: prefix,
    env: { PATH: process.env.PATH, NODE_ENV: "production" },
  });
  origin = `http://127.0.0.1:${nginxPort}`;
  await waitFor(
    "nginx to listen",
    async () => {
      if (nginx.exitCode !== null) throw new Error(`nginx exited (${nginx.exitCode}):\n${consoleLog}`);
      try {
        return (await fetch(`${origin}${BASE}/api/healthz`)).ok;
      } catch {
        return false;
      }
    },
    20_000,
  );
});

test.afterAll(async () => {
  for (const child of children.reverse()) {
    if (child.exitCode !== null || child.pid === undefined) continue;
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGTERM");
    await exited;
  }
  // The build's copy and the unpacked one: some 70 MB per run.
  if (work) rmSync(work, { recursive: true, force: true });
});

test("the artifact is the console alone: no embedded-server modules, no build step, the base path built in", () => {
  const app = join(work, "install", "breakwater");
  const modules = readdirSync(join(app, "node_modules"));
  for (const name of ["better-sqlite3", "fastify", "croner"]) expect(modules, name).not.toContain(name);
  expect(modules).toContain("next");
  expect(JSON.parse(readFileSync(join(app, "breakwater-package.json"), "utf8"))).toMatchObject({ basePath: BASE });
  expect(existsSync(join(app, "server.js"))).toBe(true);
});

/** Every request the page makes to nginx, by path. */
function requestsOf(page: Page): string[] {
  const seen: string[] = [];
  page.on("request", (request: Request) => {
    const url = new URL(request.url());
    if (url.origin === origin) seen.push(url.pathname);
  });
  return seen;
}

test("through nginx under the sub-path: sign-in redirects, the cookie's Path, a run page and its stream", async ({
  page,
}) => {
  const seeded = seededRuns();
  expect(seeded, "the run-view runs are seeded into the embedded e2e server (e2e/run-view-seed.ts)").not.toBeNull();
  const run = (seeded as SeededRunViewRuns).paged;
  const runPath = `/namespaces/default/workflows/${encodeURIComponent(run.workflowId)}/runs/${encodeURIComponent(run.runId)}`;
  const paths = requestsOf(page);
  const violations: string[] = [];
  page.on("console", (message) => {
    if (/Content Security Policy|Refused to/i.test(message.text())) violations.push(message.text());
  });
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(error.message));

  // Without a session: the sign-in page, under the sub-path, remembering where we were going.
  await page.goto(`${origin}${BASE}${runPath}`);
  await expect(page).toHaveURL(`${origin}${BASE}/login?next=${encodeURIComponent(runPath)}`);
  await page.getByLabel("User name").fill("ada");
  await page.getByLabel("Password").fill(PASSWORDS.ada);
  const streamed = page.waitForResponse((r) => new URL(r.url()).pathname === `${BASE}/api/run-view`);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(`${origin}${BASE}${runPath}`);
  await expect(page.getByTestId("run-header")).toBeVisible();
  expect((await streamed).status()).toBe(200);

  const session = (await page.context().cookies()).find((cookie) => cookie.name === "bw_session");
  expect(session?.path).toBe(BASE);

  // The streamed run view, read through nginx: the Activities ledger completes.
  const tab = page.getByRole("tab", { name: "Activities" });
  await expect(async () => {
    await tab.click();
    await expect(tab).toHaveAttribute("aria-selected", "true", { timeout: 1_000 });
  }).toPass({ timeout: 30_000 });
  await expect(page.getByTestId("activities-ledger")).toHaveAttribute("data-complete", "true", { timeout: 30_000 });

  // A client-side navigation and a live read, still under the sub-path.
  await page.getByRole("navigation").getByRole("link", { name: "Runs" }).first().click();
  await expect(page).toHaveURL(new RegExp(`^${origin}${BASE}/namespaces/default/runs`));
  await expect(page.getByTestId("connection-indicator")).toHaveAttribute("data-status", "connected", {
    timeout: 30_000,
  });

  expect(paths.length).toBeGreaterThan(10);
  expect(paths.filter((path) => !path.startsWith(`${BASE}/`))).toEqual([]);
  expect(paths.some((path) => path.startsWith(`${BASE}/_next/static/`))).toBe(true);
  expect(paths.some((path) => path.startsWith(`${BASE}/api/dw/`))).toBe(true);
  expect(violations).toEqual([]);
  expect(errors).toEqual([]);
});

test("static files come compressed from the build; an unknown page and sign-out stay under the sub-path", async ({
  page,
  request,
}) => {
  await page.goto(`${origin}${BASE}/login`);
  const script = await page.evaluate(() => (document.querySelector("script[src]") as HTMLScriptElement).src);
  expect(new URL(script).pathname.startsWith(`${BASE}/_next/static/`)).toBe(true);
  const asset = await request.get(script, { headers: { "Accept-Encoding": "br" } });
  expect(asset.status()).toBe(200);
  expect(asset.headers()["content-encoding"]).toBe("br");

  // Outside the sub-path nginx answers, not the console.
  expect((await request.get(`${origin}/api/healthz`)).status()).toBe(404);

  // The page's own request context: its cookie is the page's.
  const form = await page.request.post(`${origin}${BASE}/api/auth/login`, {
    headers: { Origin: origin },
    form: { user: "vic", password: PASSWORDS.vic, next: "/no/such/page" },
    maxRedirects: 0,
  });
  expect(form.status()).toBe(303);
  expect(form.headers().location).toBe(`${BASE}/no/such/page`);
  expect(form.headers()["set-cookie"]).toContain(`Path=${BASE}`);

  await page.goto(`${origin}${BASE}/no/such/page`);
  const home = page.getByRole("link", { name: /home|overview/i }).last();
  await expect(home).toHaveAttribute("href", new RegExp(`^${BASE}/?$`));

  const out = await page.request.post(`${origin}${BASE}/api/auth/logout`, {
    headers: { Origin: origin },
    maxRedirects: 0,
  });
  expect(out.status()).toBe(303);
  expect(out.headers().location).toBe(`${BASE}/login?error=signed_out`);
  expect(out.headers()["set-cookie"]).toContain(`Path=${BASE}`);
});
