import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "@playwright/test";
import type { BrowserContext, Cookie, Page } from "@playwright/test";
import { PASSWORDS, SESSION_SECRET, startConsole, writeUsersFile } from "./operator-fixtures";
import type { ExtraConsole } from "./operator-fixtures";

/**
 * Console access control end to end (BREAKWATER_AUTH=password): a console of the same production
 * build with a users file, against the e2e Durable Workflow server. Admins get the admin token (the
 * canary), operators and viewers the lesser worker token, so the role→token mapping is visible in
 * what each person can see. The console's stdout is kept to prove no log line carries a token.
 */

const canary = process.env.E2E_TOKEN ?? "bw-secret-token-canary";
const lesserToken = process.env.E2E_WORKER_TOKEN ?? "bw-e2e-worker-token";
const dwHost = process.env.E2E_DW_HOST ?? "";

interface AuthConsole extends ExtraConsole {
  logFile: string;
}

async function startPasswordConsole(): Promise<AuthConsole> {
  const dir = mkdtempSync(join(tmpdir(), "bw-auth-e2e-"));
  return startAuthConsole(dir, {
    BREAKWATER_AUTH: "password",
    BREAKWATER_USERS_FILE: writeUsersFile(dir),
    BREAKWATER_SESSION_SECRET: SESSION_SECRET,
    // As behind a TLS terminator on this host: the client address comes from X-Forwarded-For.
    BREAKWATER_TRUSTED_PROXIES: "127.0.0.1,::1",
  });
}

async function startAuthConsole(dir: string, authEnv: Record<string, string>): Promise<AuthConsole> {
  const logFile = join(dir, "console.log");
  const app = await startConsole(
    {
      DW_TOKEN: "",
      DW_ADMIN_TOKEN: canary,
      DW_OPERATOR_TOKEN: lesserToken,
      // Every line the console can write, each call to the server included (a debug line), as JSON.
      BREAKWATER_LOG_LEVEL: "debug",
      BREAKWATER_LOG_FORMAT: "json",
      ...authEnv,
    },
    { logFile },
  );
  return { ...app, logFile };
}

let app: AuthConsole;

test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  test.skip(!dwHost, "no Durable Workflow server for e2e");
  app = await startPasswordConsole();
});

test.afterAll(async () => {
  await app?.stop();
});

async function sessionCookie(context: BrowserContext): Promise<Cookie> {
  const session = (await context.cookies()).find((cookie) => cookie.name === "bw_session");
  if (!session) throw new Error("no session cookie");
  return session;
}

async function signIn(page: Page, user: keyof typeof PASSWORDS, next = "/runs"): Promise<void> {
  await page.goto(`${app.baseUrl}${next}`);
  await expect(page).toHaveURL(/\/login(\?|$)/);
  await page.getByLabel("User name").fill(user);
  await page.getByLabel("Password").fill(PASSWORDS[user]);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByTestId("account-status")).toContainText(`Signed in as ${user}`);
}

test("without a session, pages go to /login and the API answers 401 (health stays open)", async ({ request }) => {
  const page = await request.get(`${app.baseUrl}/runs?status=failed`, { maxRedirects: 0 });
  expect(page.status()).toBe(303);
  expect(page.headers().location).toBe("/login?next=%2Fruns%3Fstatus%3Dfailed");
  const api = await request.get(`${app.baseUrl}/api/dw/cluster/info`);
  expect(api.status()).toBe(401);
  expect(await api.json()).toMatchObject({ reason: "unauthenticated" });
  const action = await request.post(`${app.baseUrl}/api/actions/runs`, { headers: { Origin: app.baseUrl }, data: {} });
  expect(action.status()).toBe(401);
  expect((await request.get(`${app.baseUrl}/api/healthz`)).status()).toBe(200);
  // A forged person header is not a session.
  const forged = await request.get(`${app.baseUrl}/api/dw/cluster/info`, {
    headers: { "X-Breakwater-Role": "admin", "X-Breakwater-User": "mallory" },
  });
  expect(forged.status()).toBe(401);
});

test("a wrong password is refused; the right one lands on the requested page with a locked-down cookie", async ({
  page,
  context,
}) => {
  await page.goto(`${app.baseUrl}/workers`);
  await page.getByLabel("User name").fill("ada");
  await page.getByLabel("Password").fill("not-the-password");
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByTestId("login-message")).toContainText("do not match");
  await expect(page).toHaveURL(/error=invalid/);

  await page.getByLabel("User name").fill("ada");
  await page.getByLabel("Password").fill(PASSWORDS.ada);
  await page.getByRole("button", { name: "Sign in" }).click();
  // The old path signed in to, redirected to its namespaced form.
  await expect(page).toHaveURL(`${app.baseUrl}/namespaces/default/workers`);
  await expect(page.getByTestId("account-status")).toContainText("Signed in as ada (admin)");
  const session = (await context.cookies()).find((cookie) => cookie.name === "bw_session");
  expect(session).toMatchObject({ httpOnly: true, sameSite: "Lax", path: "/" });
});

test("a viewer reads but every action is refused with the viewer's role", async ({ page }) => {
  await signIn(page, "vic");
  const refused = await page.request.post(`${app.baseUrl}/api/actions/runs`, {
    headers: { Origin: app.baseUrl },
    data: { action: "cancel", workflowId: "any", runId: "any", requestId: "r1", reason: "e2e" },
  });
  expect(refused.status()).toBe(403);
  expect(await refused.json()).toMatchObject({
    reason: "role",
    message: expect.stringContaining("your role (viewer) cannot"),
  });
  const pass = await page.request.post(`${app.baseUrl}/api/actions/system/repair-pass`, {
    headers: { Origin: app.baseUrl },
    data: {},
  });
  expect(pass.status()).toBe(403);
  expect(await pass.json()).toMatchObject({ reason: "role" });
});

test("an operator sees admin-only panels as 'requires admin', never an error page; an admin sees them", async ({
  page,
  browser,
}) => {
  test.setTimeout(90_000);
  await signIn(page, "ola", "/");
  await expect(page.getByTestId("panel-metrics").getByTestId("requires-admin")).toContainText(
    "requires an admin token",
    { timeout: 20_000 },
  );
  await expect(page.getByTestId("dw-error")).toHaveCount(0);
  const pass = await page.request.post(`${app.baseUrl}/api/actions/system/repair-pass`, {
    headers: { Origin: app.baseUrl },
    data: {},
  });
  expect(await pass.json()).toMatchObject({
    reason: "role",
    message: expect.stringContaining("your role (operator) cannot run system passes"),
  });

  const adminContext = await browser.newContext();
  const admin = await adminContext.newPage();
  try {
    await signIn(admin, "ada", "/");
    // The admin token reads operator metrics: the panels render data and nothing asks for admin.
    await expect(admin.getByRole("region", { name: "Runs by status" })).toBeVisible({ timeout: 20_000 });
    await expect(admin.getByTestId("requires-admin")).toHaveCount(0);
    expect(
      (
        await admin.request.get(`${app.baseUrl}/api/dw/system/repair`, { headers: { "X-Namespace": "default" } })
      ).status(),
    ).toBe(200);
  } finally {
    await adminContext.close();
  }
});

test("a tampered session cookie counts as no session", async ({ page, context }) => {
  await signIn(page, "vic");
  const session = await sessionCookie(context);
  const [header, payload = "", signature] = session.value.split(".");
  const claims = JSON.parse(Buffer.from(payload, "base64url").toString()) as Record<string, unknown>;
  const raised = Buffer.from(JSON.stringify({ ...claims, role: "admin" })).toString("base64url");
  await context.addCookies([{ ...session, value: `${header}.${raised}.${signature}` }]);
  const answer = await page.request.get(`${app.baseUrl}/api/dw/cluster/info`);
  expect(answer.status()).toBe(401);
  await page.goto(`${app.baseUrl}/runs`);
  await expect(page).toHaveURL(/\/login\?next=%2Fruns/);
});

test("signing out ends the session", async ({ page }) => {
  await signIn(page, "ola");
  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page.getByTestId("login-message")).toContainText("signed out");
  await page.goto(`${app.baseUrl}/runs`);
  await expect(page).toHaveURL(/\/login\?next=%2Fruns/);
});

test("login attempts are throttled per user name", async ({ request }) => {
  const attempt = (password: string) =>
    request.post(`${app.baseUrl}/api/auth/login`, {
      headers: { Origin: app.baseUrl },
      form: { user: "throttled-user", password, next: "/" },
      maxRedirects: 0,
    });
  for (let n = 0; n < 5; n += 1) expect((await attempt(`guess-${n}`)).headers().location).toContain("error=invalid");
  const limited = await attempt("guess-6");
  expect(limited.headers().location).toContain("error=rate_limited");
  expect(Number(limited.headers()["retry-after"])).toBeGreaterThan(0);
  const crossSite = await request.post(`${app.baseUrl}/api/auth/login`, {
    headers: { Origin: "http://evil.test" },
    form: { user: "ada", password: PASSWORDS.ada },
  });
  expect(crossSite.status()).toBe(403);
});

test("a guesser throttles itself: the account's owner still signs in from elsewhere", async ({ request }) => {
  const login = (from: string, password: string) =>
    request.post(`${app.baseUrl}/api/auth/login`, {
      headers: { Origin: app.baseUrl, "X-Forwarded-For": from },
      form: { user: "ada", password, next: "/" },
      maxRedirects: 0,
    });
  const outcomes: string[] = [];
  for (let n = 0; n < 8; n += 1)
    outcomes.push(
      new URL((await login("203.0.113.66", `guess-${n}`)).headers().location ?? "", app.baseUrl).searchParams.get(
        "error",
      ) ?? "",
    );
  expect(outcomes).toEqual([...Array(5).fill("invalid"), ...Array(3).fill("rate_limited")]);
  // Five wrong attempts used to lock ada out everywhere; her own address is not the guesser's.
  const owner = await login("198.51.100.7", PASSWORDS.ada);
  expect(owner.status()).toBe(303);
  expect(owner.headers().location).toBe("/");
  expect(owner.headers()["set-cookie"]).toContain("bw_session=");
  // The guesser's own correct guess is refused while it is throttled: the throttle is no oracle.
  expect((await login("203.0.113.66", PASSWORDS.ada)).headers().location).toContain("error=rate_limited");
});

test("a sign-in whose next path is not ASCII lands there with a cookie, not a 500", async ({ request }) => {
  const answer = await request.post(`${app.baseUrl}/api/auth/login`, {
    headers: { Origin: app.baseUrl },
    form: { user: "vic", password: PASSWORDS.vic, next: "/中文" },
    maxRedirects: 0,
  });
  expect(answer.status()).toBe(303);
  expect(answer.headers().location).toBe("/%E4%B8%AD%E6%96%87");
  expect(answer.headers()["set-cookie"]).toContain("bw_session=");
  // Signed in now, /login sends the person on to `next`: a Location it must be able to write.
  const page = await request.get(`${app.baseUrl}/login?next=${encodeURIComponent("/中文")}`, { maxRedirects: 0 });
  expect(page.status()).toBe(307);
  expect(page.headers().location).toContain("/%E4%B8%AD%E6%96%87");
});

test("a copy of the session cookie stops working once its owner signs out", async ({ page, context }) => {
  await signIn(page, "vic");
  const session = await sessionCookie(context);
  expect((await page.request.get(`${app.baseUrl}/api/dw/cluster/info`)).status()).toBe(200);
  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page.getByTestId("login-message")).toContainText("signed out");
  // The copied cookie, put back: revoked on the server, not only deleted in this browser.
  await context.addCookies([session]);
  expect((await page.request.get(`${app.baseUrl}/api/dw/cluster/info`)).status()).toBe(401);
  await page.goto(`${app.baseUrl}/runs`);
  await expect(page).toHaveURL(/\/login\?next=%2Fruns/);
});

test("no token in any URL the browser requested, any page, or any console log line", async ({ page }) => {
  const urls: string[] = [];
  page.on("request", (request) => urls.push(request.url()));
  await signIn(page, "ada", "/");
  for (const path of ["/", "/runs", "/attention", "/system", "/workers"]) {
    await page.goto(`${app.baseUrl}${path}`);
    await page.waitForLoadState("networkidle");
    const html = await page.content();
    expect(html, path).not.toContain(canary);
    expect(html, path).not.toContain(lesserToken);
  }
  expect(urls.length).toBeGreaterThan(5);
  for (const url of urls) {
    expect(url).not.toContain(canary);
    expect(url).not.toContain(lesserToken);
  }
  const log = readFileSync(app.logFile, "utf8");
  // The log is real: calls to the DW server were made and logged with a request id.
  expect(log).toMatch(/"msg":"dw call"/);
  expect(log).toMatch(/"requestId":"[0-9a-f-]{36}"/);
  expect(log).not.toContain(canary);
  expect(log).not.toContain(lesserToken);
  expect(log).not.toContain(PASSWORDS.ada);
  expect(log).not.toContain("bw_session=");
});

test.describe("proxy mode", () => {
  const identity = {
    "X-Forwarded-User": "ada",
    "X-Forwarded-Email": "ada@example.com",
    "X-Forwarded-Groups": "ops-admins",
  };
  const proxyEnv = (trusted: string) => ({
    BREAKWATER_AUTH: "proxy",
    BREAKWATER_TRUSTED_PROXIES: trusted,
    BREAKWATER_ROLE_GROUPS: "admin:ops-admins,viewer:readers",
  });

  test("identity headers from a non-proxy address are ignored, however X-Forwarded-For is dressed", async ({
    request,
  }) => {
    test.setTimeout(90_000);
    const spoofed = await startAuthConsole(mkdtempSync(join(tmpdir(), "bw-proxy-e2e-")), proxyEnv("10.9.9.9"));
    try {
      const answer = await request.get(`${spoofed.baseUrl}/api/dw/cluster/info`, {
        headers: {
          ...identity,
          "X-Forwarded-For": "10.9.9.9",
          "X-Real-IP": "10.9.9.9",
          "X-Breakwater-Peer": "10.9.9.9",
        },
      });
      expect(answer.status()).toBe(401);
      expect(readFileSync(spoofed.logFile, "utf8")).toMatch(/"peer":"127\.0\.0\.1".*not a trusted proxy/);
    } finally {
      await spoofed.stop();
    }
  });

  test("the trusted proxy's headers sign a person in with the role their groups map to", async ({ request }) => {
    test.setTimeout(90_000);
    const trusted = await startAuthConsole(mkdtempSync(join(tmpdir(), "bw-proxy-e2e-")), proxyEnv("127.0.0.1,::1"));
    try {
      expect((await request.get(`${trusted.baseUrl}/api/dw/cluster/info`, { headers: identity })).status()).toBe(200);
      const viewer = { "X-Forwarded-User": "vic", "X-Forwarded-Groups": "readers" };
      const refused = await request.post(`${trusted.baseUrl}/api/actions/runs`, {
        headers: { ...viewer, Origin: trusted.baseUrl },
        data: {},
      });
      expect(await refused.json()).toMatchObject({
        reason: "role",
        message: expect.stringContaining("your role (viewer) cannot"),
      });
      const noRole = await request.get(`${trusted.baseUrl}/api/dw/cluster/info`, {
        headers: { "X-Forwarded-User": "bob", "X-Forwarded-Groups": "marketing" },
      });
      expect(noRole.status()).toBe(403);
      expect(await noRole.json()).toMatchObject({ reason: "no_role" });
    } finally {
      await trusted.stop();
    }
  });
});

test("without BREAKWATER_AUTH the shell says, quietly, that the console is for local access only", async ({ page }) => {
  await page.goto("/");
  await expect(page.getByTestId("no-console-auth")).toHaveText("No console authentication — local access only");
  await expect(page.getByTestId("account-status")).toHaveCount(0);
});
