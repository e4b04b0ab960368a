import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import bcrypt from "bcryptjs";
import { expect, test } from "@playwright/test";
import type { Page } from "@playwright/test";
import { snapBothThemes, startConsole } from "./operator-fixtures";
import { e2eScenarios, SCENARIO_IDS } from "./run-scenarios";

/**
 * Weak spot 9 of issue 11: every screen renders under the strict Content-Security-Policy (nonce
 * scripts, the theme script by hash, the run page's Web Worker by worker-src) with no violation.
 * Violations are collected in the page (`securitypolicyviolation`) and from the console.
 */

const dwHost = process.env.E2E_DW_HOST ?? "";

test.describe.configure({ mode: "serial" });
test.skip(!dwHost, "no Durable Workflow server for e2e");

interface Watch {
  violations(): Promise<string[]>;
}

async function watchCsp(page: Page): Promise<Watch> {
  const fromConsole: string[] = [];
  page.on("console", (message) => {
    if (/Content Security Policy|Refused to (load|execute|apply|create|connect)/i.test(message.text()))
      fromConsole.push(message.text());
  });
  await page.addInitScript(() => {
    const seen: string[] = [];
    (window as unknown as { __csp: string[] }).__csp = seen;
    document.addEventListener("securitypolicyviolation", (event) =>
      seen.push(`${event.violatedDirective} ${event.blockedURI} ${event.sourceFile}:${event.lineNumber}`),
    );
  });
  return {
    async violations() {
      const inPage = await page.evaluate(() => (window as unknown as { __csp?: string[] }).__csp ?? []);
      return [...inPage, ...fromConsole];
    },
  };
}

function expectStrictPolicy(policy: string | undefined): void {
  expect(policy).toMatch(/script-src 'self' 'nonce-[A-Za-z0-9+/=]+' 'sha256-[A-Za-z0-9+/=]+' 'strict-dynamic'/);
  expect(policy).toContain("frame-ancestors 'none'");
  expect(policy).toContain("worker-src 'self'");
  expect(policy).not.toContain("unsafe-eval");
}

test("every screen renders under the CSP with no violation, the theme script and the run-view stream included", async ({
  page,
  baseURL,
}) => {
  test.setTimeout(180_000);
  const runs = await e2eScenarios();
  const watch = await watchCsp(page);
  const runPage = `/workflows/${encodeURIComponent(SCENARIO_IDS.retried)}/runs/${encodeURIComponent(runs.retried)}`;

  for (const path of [
    "/",
    "/runs",
    "/attention",
    "/system",
    "/workers",
    "/namespaces/default/schedules",
    "/namespaces/default/namespaces",
    "/namespaces/default/search-attributes",
  ]) {
    const response = await page.goto(path);
    expect(response?.status(), path).toBe(200);
    const headers = response?.headers() ?? {};
    expectStrictPolicy(headers["content-security-policy"]);
    expect(headers["permissions-policy"]).toContain("camera=()");
    expect(headers["x-content-type-options"]).toBe("nosniff");
    expect(headers["referrer-policy"]).toBe("same-origin");
    await page.waitForLoadState("networkidle");
    // Hydrated: a client-side navigation link works only once React runs.
    await expect(page.getByRole("navigation").first()).toBeVisible();
    expect(await watch.violations(), path).toEqual([]);
  }

  // The run page: its views stream from the console (GET /api/run-view), inflated in the page.
  const view = page.waitForResponse((response) => response.url().includes("/api/run-view?"));
  await page.goto(`${runPage}?view=activities`);
  expect((await view).status()).toBe(200);
  await expect(
    page.getByTestId("ledger-activity").filter({ hasText: "ReserveStock" }).getByTestId("attempt-row"),
  ).toHaveCount(3);
  await page.getByRole("tab", { name: "Timeline" }).click();
  await expect(page.getByTestId("timeline-chart")).toBeVisible();
  expect(await watch.violations(), "run page").toEqual([]);

  // The no-flash theme script ran (by hash): it set the class before paint and follows the OS.
  await page.emulateMedia({ colorScheme: "dark" });
  await expect(page.locator("html")).toHaveClass(/\bdark\b/);
  await page.emulateMedia({ colorScheme: "light" });
  await expect(page.locator("html")).not.toHaveClass(/\bdark\b/);
  expect((await page.context().cookies(baseURL)).some((cookie) => cookie.name === "bw-tz")).toBe(true);

  await snapBothThemes(page, "csp-run-page");
  await page.goto("/");
  await page.waitForLoadState("networkidle");
  await snapBothThemes(page, "csp-overview");
  expect(await watch.violations(), "screenshots").toEqual([]);
});

test("the password-mode sign-in page and sign-in work under the CSP", async ({ page }) => {
  test.setTimeout(90_000);
  const dir = mkdtempSync(join(tmpdir(), "bw-csp-e2e-"));
  const usersFile = join(dir, "users.json");
  writeFileSync(
    usersFile,
    JSON.stringify([{ user: "ada", hash: bcrypt.hashSync("ada-admin-pass", 8), role: "admin" }]),
  );
  const app = await startConsole({
    BREAKWATER_AUTH: "password",
    BREAKWATER_USERS_FILE: usersFile,
    BREAKWATER_SESSION_SECRET: "csp-e2e-session-secret-0123456789abcdef",
  });
  try {
    const watch = await watchCsp(page);
    const login = await page.goto(`${app.baseUrl}/login`);
    expectStrictPolicy(login?.headers()["content-security-policy"]);
    await page.getByLabel("User name").fill("ada");
    await page.getByLabel("Password").fill("ada-admin-pass");
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page.getByTestId("account-status")).toContainText("Signed in as ada");
    await page.waitForLoadState("networkidle");
    expect(await watch.violations()).toEqual([]);
  } finally {
    await app.stop();
  }
});
