import { mkdirSync } from "node:fs";
import { expect, test } from "@playwright/test";
import type { Page } from "@playwright/test";
import { hydrated } from "./page-ready";
import { startConsole } from "./operator-fixtures";

const SCREENSHOTS = "test-results/screenshots";
const dwHost = process.env.E2E_DW_HOST ?? "";

const html = (page: Page) => page.locator("html");
const colorScheme = (page: Page) => page.evaluate(() => getComputedStyle(document.documentElement).colorScheme);
const canvasColor = (page: Page) => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
/** Screenshots show the resting state: no focus ring left over from the last interaction. */
const screenshot = async (page: Page, name: string) => {
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
  await page.screenshot({ path: `${SCREENSHOTS}/${name}.png`, fullPage: true });
};

test.beforeAll(() => {
  mkdirSync(SCREENSHOTS, { recursive: true });
});

test("the shell shows navigation, a connected server, and a dark theme that persists", async ({ page }) => {
  test.skip(!dwHost, "no Durable Workflow server for e2e: server/main.ts is missing and E2E_DW_SERVER_URL is unset");

  await page.goto("/");
  await expect(page.getByRole("navigation", { name: "Primary" })).toBeVisible();
  await expect(page.getByRole("link", { name: "Overview" })).toHaveAttribute("aria-current", "page");
  await expect(page.getByRole("heading", { level: 1, name: "Overview" })).toBeVisible();
  await expect(page.getByRole("main")).toBeVisible();
  await expect(page.getByRole("banner")).toBeVisible();

  const indicator = page.getByTestId("connection-indicator");
  await expect(indicator).toHaveAttribute("data-status", "connected", { timeout: 20_000 });
  await expect(indicator).toContainText("Connected");
  await expect(page.getByTestId("connection-host")).toHaveText(dwHost);

  await indicator.click();
  const details = page.locator(`#${await indicator.getAttribute("aria-controls")}`);
  await expect(details).toBeVisible();
  await expect(details).toContainText(dwHost);
  await expect(details).toContainText("Server version");
  await page.keyboard.press("Escape");
  await expect(details).toBeHidden();

  await expect(page.getByTestId("namespace-switcher")).toHaveValue("default");
  await expect(page.getByTestId("namespace-switcher").locator("option", { hasText: /^default$/ })).toHaveCount(1);

  await expect(html(page)).not.toHaveClass(/\bdark\b/);
  expect(await colorScheme(page)).toBe("light");
  const lightCanvas = await canvasColor(page);
  await screenshot(page, "shell-light");

  await page.getByRole("button", { name: "Dark" }).click();
  await expect(html(page)).toHaveClass(/\bdark\b/);
  expect(await colorScheme(page)).toBe("dark");
  expect(await canvasColor(page)).not.toBe(lightCanvas);

  await page.reload();
  await expect(html(page)).toHaveClass(/\bdark\b/);
  await expect(page.getByRole("button", { name: "Dark" })).toHaveAttribute("aria-pressed", "true");
  await expect(page.getByTestId("connection-indicator")).toHaveAttribute("data-status", "connected", {
    timeout: 20_000,
  });
  await screenshot(page, "shell-dark");
});

test("the theme is applied before the first paint, with no flash", async ({ page, context, baseURL }) => {
  await context.addCookies([{ name: "bw-theme", value: "dark", url: baseURL ?? "" }]);
  // Record <html>'s class at the moment <body> is first inserted, before anything can paint.
  await page.addInitScript(() => {
    const observer = new MutationObserver(() => {
      if (document.body) {
        document.documentElement.setAttribute("data-class-at-body", document.documentElement.className);
        observer.disconnect();
      }
    });
    observer.observe(document, { childList: true, subtree: true });
  });
  await page.goto("/runs");
  await expect(html(page)).toHaveAttribute("data-class-at-body", /\bdark\b/);

  // The theme is set by a blocking script in <head>, i.e. before the body is parsed, not by React.
  const markup = await (await page.request.get("/runs")).text();
  expect(markup).toMatch(/<html[^>]*data-theme-preference="dark"/);
  const themeScript = markup.indexOf("prefers-color-scheme");
  expect(themeScript).toBeGreaterThan(-1);
  expect(themeScript).toBeLessThan(markup.indexOf("<body"));
});

test("System follows the operating system's colour scheme", async ({ page }) => {
  await page.goto("/");
  await expect(page.getByRole("button", { name: "System" })).toHaveAttribute("aria-pressed", "true");
  await page.emulateMedia({ colorScheme: "dark" });
  await expect(html(page)).toHaveClass(/\bdark\b/);
  await page.emulateMedia({ colorScheme: "light" });
  await expect(html(page)).not.toHaveClass(/\bdark\b/);

  await hydrated(page);
  await page.getByRole("button", { name: "Light" }).click();
  await expect(page.getByRole("button", { name: "Light" })).toHaveAttribute("aria-pressed", "true");
  await page.emulateMedia({ colorScheme: "dark" });
  await expect(html(page)).not.toHaveClass(/\bdark\b/);
});

test("every section is reachable from the navigation", async ({ page }) => {
  await page.goto("/");
  for (const [name, path] of [
    ["Runs", "/namespaces/default/runs"],
    ["Attention", "/namespaces/default/attention"],
    ["Failures", "/namespaces/default/failures"],
    ["System", "/namespaces/default/system"],
    ["Workers", "/namespaces/default/workers"],
    ["Schedules", "/namespaces/default/schedules"],
    ["Namespaces", "/namespaces/default/namespaces"],
    ["Search attributes", "/namespaces/default/search-attributes"],
    ["Overview", "/namespaces/default"],
  ] as const) {
    // By the start of its name: Attention's link also says how many runs need it ("2 runs need…").
    const link = page.getByRole("navigation", { name: "Primary" }).getByRole("link", { name: new RegExp(`^${name}`) });
    await link.click();
    await expect(page).toHaveURL(path);
    await expect(page.getByRole("heading", { level: 1, name })).toBeVisible();
    // In the navigation: a run id on the page may contain the section's name (ops-overview-…).
    await expect(link).toHaveAttribute("aria-current", "page");
    await expect(page).toHaveTitle(`${name} · Breakwater`);
  }
});

test("the skip link moves focus to the main content", async ({ page }) => {
  await page.goto("/");
  await page.keyboard.press("Tab");
  const skip = page.getByRole("link", { name: "Skip to main content" });
  await expect(skip).toBeFocused();
  await skip.press("Enter");
  await expect(page).toHaveURL(/#main$/);
});

test.describe("locale", () => {
  test.use({ locale: "de-DE" });

  test("follows Accept-Language, and the switcher's choice persists", async ({ page }) => {
    test.slow();
    await page.goto("/");
    await expect(html(page)).toHaveAttribute("lang", "de");
    // Scoped to the navigation: an overview alert linking elsewhere can also mention runs.
    await expect(
      page.getByRole("navigation", { name: "Hauptnavigation" }).getByRole("link", { name: "Läufe", exact: true }),
    ).toBeVisible();

    await hydrated(page);
    await page.getByRole("combobox", { name: "Sprache" }).selectOption("en");
    // The switch re-renders every server component of the page; allow for a busy machine.
    await expect(
      page.getByRole("navigation", { name: "Primary" }).getByRole("link", { name: "Runs", exact: true }),
    ).toBeVisible({ timeout: 30_000 });
    await expect(html(page)).toHaveAttribute("lang", "en");
    await page.reload();
    await expect(page.getByRole("heading", { level: 1, name: "Overview" })).toBeVisible();
  });
});

test.describe("time zone", () => {
  test.use({ timezoneId: "America/New_York" });

  test("times render in UTC until the operator picks local time", async ({ page }) => {
    test.slow();
    await page.goto("/");
    const indicator = page.getByTestId("connection-indicator");
    await expect(indicator).not.toHaveAttribute("data-status", "checking", { timeout: 20_000 });
    await indicator.click();
    const details = page.locator(`#${await indicator.getAttribute("aria-controls")}`);
    await expect(details).toContainText(/Last checked\s*\d{2}:\d{2}:\d{2}\sUTC/);

    await page.getByRole("button", { name: "Local" }).click();
    await expect(page.getByRole("button", { name: "Local" })).toHaveAttribute("aria-pressed", "true", {
      timeout: 30_000,
    });
    await indicator.click();
    await expect(details).toContainText(/Last checked\s*\d{2}:\d{2}:\d{2}\sE[SD]T/);
  });
});

test("the page's namespace travels to the server as X-Namespace", async ({ page, context }) => {
  test.skip(!dwHost, "no Durable Workflow server for e2e: server/main.ts is missing and E2E_DW_SERVER_URL is unset");

  // The read proxy takes the namespace the browser names, and refuses a namespaced read without one.
  const unnamed = await page.request.get("/api/dw/workflows");
  expect(unnamed.status()).toBe(400);
  expect(await unnamed.json()).toMatchObject({ reason: "namespace_required" });
  expect((await page.request.get("/api/dw/workflows", { headers: { "X-Namespace": "default" } })).status()).toBe(200);
  const missing = await page.request.get("/api/dw/workflows", { headers: { "X-Namespace": "e2e-absent" } });
  expect(missing.status()).toBe(404);
  expect(await missing.json()).toMatchObject({ reason: "namespace_not_found" });

  // The switcher shows the URL's namespace, marked as unknown to the server.
  await page.goto("/namespaces/e2e-absent/runs");
  const switcher = page.getByTestId("namespace-switcher");
  await expect(switcher).toHaveValue("e2e-absent");
  await expect(switcher.locator("option", { hasText: "e2e-absent (not on server)" })).toHaveCount(1);

  // Switching goes to the same screen in the other namespace, which becomes the last used one.
  await hydrated(page);
  await switcher.selectOption("default");
  await expect(page).toHaveURL(/\/namespaces\/default\/runs$/);
  await expect
    .poll(async () => (await context.cookies()).find((cookie) => cookie.name === "bw-namespace")?.value)
    .toBe("default");
});

test("the console serves its icons and web app manifest from public/", async ({ request, page }) => {
  for (const [path, type] of [
    ["/favicon.ico", "image/"],
    ["/apple-touch-icon.png", "image/png"],
    ["/icon-192.png", "image/png"],
    ["/icon-512.png", "image/png"],
    ["/manifest.webmanifest", "application/manifest+json"],
  ] as const) {
    const res = await request.get(path, { maxRedirects: 0 });
    expect(res.status(), path).toBe(200);
    expect(res.headers()["content-type"], path).toContain(type);
  }
  await page.goto("/");
  await expect(page.locator('link[rel="apple-touch-icon"]')).toHaveAttribute("href", "/apple-touch-icon.png");
});

test("without KIKWIFLOW_URL, /kikwiflow is a 404 that says how to connect an engine", async ({ page }) => {
  // A console of its own: the shared one has an engine whenever the Kikwiflow test host is built.
  const bare = await startConsole({ KIKWIFLOW_URL: "" });
  try {
    for (const path of ["/kikwiflow", "/kikwiflow/definitions"]) {
      const response = await page.goto(`${bare.baseUrl}${path}`);
      expect(response?.status(), path).toBe(404);
      const unconfigured = page.getByTestId("kikwiflow-unconfigured");
      await expect(unconfigured.getByRole("heading", { level: 1 })).toHaveText("No Kikwiflow engine is connected");
      await expect(unconfigured).toContainText("KIKWIFLOW_URL");
      await expect(unconfigured).toContainText("KIKWIFLOW_TENANT");
      await expect(unconfigured).toContainText("A Kikwiflow engine in the same console");
    }
    await expect(page.getByTestId("nav-kikwiflow")).toHaveCount(0);
  } finally {
    await bare.stop();
  }
});
