import { mkdirSync } from "node:fs";
import { expect, test } from "@playwright/test";
import type { Page } from "@playwright/test";
import { hydrated } from "./page-ready";

/** Issue 45 points 2, 4 and 5: saved views, any time zone, the shortcut sheet. */
const SHOTS = process.env.HABITS_SHOTS_DIR ?? "test-results/screenshots";
const RUNS = "/namespaces/default/runs";
const FAILURES = "/namespaces/default/failures";

/** React reports a server/browser disagreement on the console; none may appear. */
function watchHydration(page: Page): string[] {
  const problems: string[] = [];
  page.on("console", (message) => {
    const text = message.text();
    if (/hydrat|did not match|server rendered/i.test(text)) problems.push(text);
  });
  page.on("pageerror", (error) => {
    if (/hydrat|did not match/i.test(error.message)) problems.push(error.message);
  });
  return problems;
}

async function shots(page: Page, name: string) {
  mkdirSync(SHOTS, { recursive: true });
  for (const theme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme: theme });
    await page.evaluate((dark) => {
      document.documentElement.classList.toggle("dark", dark);
      document.documentElement.style.colorScheme = dark ? "dark" : "light";
    }, theme === "dark");
    await page.screenshot({ path: `${SHOTS}/${name}-${theme}.png` });
  }
  await page.evaluate(() => document.documentElement.classList.remove("dark"));
}

test.describe("any time zone", () => {
  test("an operator in Lisbon picks Tokyo: every time follows, the zone shows, a reload keeps it, no hydration mismatch", async ({
    page,
  }) => {
    test.slow();
    const problems = watchHydration(page);
    await page.goto(RUNS);
    await hydrated(page);
    const toggle = page.getByTestId("time-mode");
    await page.getByRole("button", { name: "Other zone" }).click();
    const picker = page.getByRole("combobox", { name: "Time zone" });
    await expect(picker).toBeVisible({ timeout: 30_000 });
    // The browser's list, filled in after hydration.
    await expect(picker.locator("option")).not.toHaveCount(1);
    expect(await picker.locator("option").count()).toBeGreaterThan(300);
    await picker.selectOption("Asia/Tokyo");
    await expect(toggle).toHaveAttribute("data-zone", "Asia/Tokyo", { timeout: 30_000 });
    await expect(picker).toHaveValue("Asia/Tokyo");

    const indicator = page.getByTestId("connection-indicator");
    await indicator.click();
    const details = page.locator(`#${await indicator.getAttribute("aria-controls")}`);
    await expect(details).toContainText(/Last checked\s*\d{2}:\d{2}:\d{2}\sGMT\+9/);

    // Server-rendered in the same zone: a fresh load shows it before any script runs.
    await page.reload();
    await hydrated(page);
    await expect(page.getByRole("combobox", { name: "Time zone" })).toHaveValue("Asia/Tokyo");
    await expect(page.getByTestId("time-mode")).toHaveAttribute("data-zone", "Asia/Tokyo");
    await page.setViewportSize({ width: 1440, height: 900 });
    await shots(page, "time-zone-1440");
    await page.setViewportSize({ width: 390, height: 844 });
    await shots(page, "time-zone-390");
    await page.setViewportSize({ width: 1280, height: 720 });

    await page.getByRole("button", { name: "UTC" }).click();
    await expect(page.getByTestId("time-mode")).toHaveAttribute("data-zone", "UTC", { timeout: 30_000 });
    await expect(page.getByRole("combobox", { name: "Time zone" })).toHaveCount(0);
    expect(problems).toEqual([]);
  });
});

test.describe("shortcut sheet", () => {
  test("? opens the screen's shortcuts in a modal dialog; Escape closes it; ? typed into a field stays there", async ({
    page,
  }) => {
    await page.goto(RUNS);
    await hydrated(page);
    await page.keyboard.press("?");
    const sheet = page.getByRole("dialog", { name: "Keyboard shortcuts" });
    await expect(sheet).toBeVisible();
    await expect(sheet.locator('[data-group="runsList"]')).toContainText("Select the next run");
    await expect(sheet.locator('[data-group="runsList"]')).toContainText("Open the selected run");
    await expect(sheet.locator('[data-group="everywhere"]')).toContainText("Show this list of shortcuts");
    // Focus moves into the modal and never reaches the page behind it (inert while the sheet is open).
    expect(await sheet.evaluate((dialog) => dialog.contains(document.activeElement))).toBe(true);
    for (let i = 0; i < 4; i++) {
      await page.keyboard.press("Tab");
      const outside = await sheet.evaluate(
        (dialog) => document.activeElement !== document.body && !dialog.contains(document.activeElement),
      );
      expect(outside).toBe(false);
    }
    await page.setViewportSize({ width: 1440, height: 900 });
    await shots(page, "shortcuts-1440");
    await page.setViewportSize({ width: 390, height: 844 });
    await shots(page, "shortcuts-390");
    await page.keyboard.press("Escape");
    await expect(sheet).toBeHidden();

    const search = page.getByRole("searchbox").first();
    await search.click();
    await page.keyboard.type("a?b");
    await expect(search).toHaveValue("a?b");
    await expect(sheet).toBeHidden();
  });

  test("a screen without keys of its own lists only the shell's, in the operator's language", async ({
    page,
    baseURL,
  }) => {
    await page.context().addCookies([{ name: "bw-locale", value: "de", url: baseURL ?? "" }]);
    await page.goto(FAILURES);
    await hydrated(page);
    await page.keyboard.press("?");
    const sheet = page.getByRole("dialog", { name: "Tastenkürzel" });
    await expect(sheet).toBeVisible();
    await expect(sheet.locator("[data-group]")).toHaveCount(1);
    await expect(sheet).toContainText("Diese Liste der Tastenkürzel zeigen");
    await sheet.getByRole("button", { name: "Schließen" }).click();
    await expect(sheet).toBeHidden();
  });
});

test.describe("saved views", () => {
  test("built-in, saved under a hostile name, with density and columns, re-applied, and kept per person", async ({
    page,
  }) => {
    test.slow();
    await page.goto(RUNS);
    await hydrated(page);
    const bar = page.getByTestId("saved-views");
    const select = bar.getByRole("combobox", { name: "View" });
    await select.selectOption({ label: "Failed in the last hour" });
    await expect(page).toHaveURL(/\/runs\?status=failed&range=1h$/);

    // The list's look joins the URL, and so the view.
    await page.getByRole("button", { name: "Roomy" }).click();
    await expect(page).toHaveURL(/density=normal/);
    await page.getByTestId("columns-menu").click();
    await page.getByRole("checkbox", { name: "Task queue" }).uncheck();
    await expect(page).toHaveURL(/hide=task_queue/);
    await page.keyboard.press("Escape");

    const hostile = `<img src=x onerror="window.__pwned=1"> ‮فشل‬ ${"x".repeat(200)}`;
    await bar.getByRole("button", { name: "Save view…" }).click();
    const dialog = page.getByRole("dialog", { name: "Save this view" });
    await dialog.getByRole("textbox", { name: "Name" }).fill(hostile);
    await dialog.getByRole("button", { name: "Save", exact: true }).click();
    await expect(dialog).toBeHidden();
    const savedOption = select.locator("optgroup").last().locator("option");
    await expect(savedOption).toHaveCount(1);
    const name = await savedOption.textContent();
    expect(name).toMatch(/^<img src=x onerror="window.__pwned=1"> فشل x+$/);
    expect(Array.from(name ?? "")).toHaveLength(80);
    expect(await page.evaluate(() => (window as { __pwned?: number }).__pwned)).toBeUndefined();
    await expect(select).toHaveValue(/^s:/);

    // Away and back: picking the saved view restores filters, density and columns.
    await page.goto(RUNS);
    await hydrated(page);
    await expect(select).toHaveValue("");
    await select.selectOption({ index: 2 });
    await expect(page).toHaveURL(/\?status=failed&range=1h&density=normal&hide=task_queue$/);
    await expect(page.getByRole("button", { name: "Roomy" })).toHaveAttribute("aria-pressed", "true");

    await page.setViewportSize({ width: 1440, height: 900 });
    await shots(page, "saved-views-runs-1440");
    await page.setViewportSize({ width: 390, height: 844 });
    await shots(page, "saved-views-runs-390");
    await page.setViewportSize({ width: 1280, height: 720 });

    // One entry for this person (no console sign-in here); views are not tied to the namespace.
    const keys = await page.evaluate(() => Object.keys(localStorage).filter((key) => key.startsWith("bw-views:")));
    expect(keys).toEqual(["bw-views:v1:~"]);

    // Deleting it.
    await bar.getByRole("button", { name: "Delete view" }).click();
    await expect(select.locator("optgroup")).toHaveCount(1);
  });

  test("a corrupt store is said and set aside; a full one refuses to save without breaking the screen", async ({
    page,
  }) => {
    await page.goto(RUNS);
    await page.evaluate(() => localStorage.setItem("bw-views:v1:~", "{not json"));
    await page.reload();
    await hydrated(page);
    const bar = page.getByTestId("saved-views");
    await expect(bar.getByTestId("saved-views-note")).toContainText("could not be read");

    await page.evaluate(() => {
      Storage.prototype.setItem = () => {
        throw new DOMException("full", "QuotaExceededError");
      };
    });
    await bar.getByRole("button", { name: "Save view…" }).click();
    const dialog = page.getByRole("dialog", { name: "Save this view" });
    await dialog.getByRole("button", { name: "Save", exact: true }).click();
    await expect(dialog.getByRole("alert")).toContainText("Give the view a name");
    await dialog.getByRole("textbox", { name: "Name" }).fill("Mine");
    await dialog.getByRole("button", { name: "Save", exact: true }).click();
    await expect(dialog.getByRole("alert")).toContainText("storage is full or blocked");
  });

  test("the Failures view: the built-in non-retryable view sets the window and the cause; a copied link reopens it", async ({
    page,
    context,
  }) => {
    await context.grantPermissions(["clipboard-read", "clipboard-write"]);
    await page.goto(FAILURES);
    await hydrated(page);
    const select = page.getByTestId("saved-views").getByRole("combobox", { name: "View" });
    await select.selectOption({ label: "Non-retryable failures, last 24 hours" });
    await expect(page).toHaveURL(/\/failures\?window=24h&cause=non_retryable$/);
    await expect(page.getByTestId("failures-cause")).toHaveValue("non_retryable");
    await page.getByRole("button", { name: "Copy link" }).click();
    await expect(page.getByTestId("saved-views-note")).toContainText("Link copied.");
    const link = await page.evaluate(() => navigator.clipboard.readText());
    expect(link).toMatch(/\/namespaces\/default\/failures\?window=24h&cause=non_retryable$/);

    const other = await context.newPage();
    await other.goto(link);
    await hydrated(other);
    await expect(other.getByTestId("failures-cause")).toHaveValue("non_retryable");
    await expect(other.getByTestId("window-24h")).toHaveAttribute("aria-pressed", "true");
    await other.setViewportSize({ width: 1440, height: 900 });
    await shots(other, "saved-views-failures-1440");
    await other.setViewportSize({ width: 390, height: 844 });
    await shots(other, "saved-views-failures-390");
  });

  test("the Schedules list keeps its filters in the URL, so a saved view reopens them", async ({ page }) => {
    await page.goto("/namespaces/default/schedules");
    await hydrated(page);
    const filters = page.getByTestId("schedules-filters");
    await filters.getByRole("button", { name: "Paused" }).click();
    await expect(page).toHaveURL(/\/schedules\?state=paused$/);
    const bar = page.getByTestId("saved-views");
    await bar.getByRole("button", { name: "Save view…" }).click();
    const dialog = page.getByRole("dialog", { name: "Save this view" });
    await dialog.getByRole("textbox", { name: "Name" }).fill("Paused ones");
    await dialog.getByRole("button", { name: "Save", exact: true }).click();
    await expect(bar.getByTestId("saved-views-note")).toContainText("Saved “Paused ones”.");

    await page.goto("/namespaces/default/schedules");
    await hydrated(page);
    await expect(filters.getByRole("button", { name: "Paused" })).toHaveAttribute("aria-pressed", "false");
    await bar.getByRole("combobox", { name: "View" }).selectOption({ label: "Paused ones" });
    await expect(page).toHaveURL(/\/schedules\?state=paused$/);
    await expect(filters.getByRole("button", { name: "Paused" })).toHaveAttribute("aria-pressed", "true");
    await page.setViewportSize({ width: 1440, height: 900 });
    await shots(page, "saved-views-schedules-1440");
    await page.setViewportSize({ width: 390, height: 844 });
    await shots(page, "saved-views-schedules-390");
  });
});
