import { expect, test } from "@playwright/test";
import type { Page, Route } from "@playwright/test";

/**
 * A page whose script does not load before hydration (the console was rebuilt or restarted while it
 * opened, or a proxy dropped a chunk). Without handling, the server HTML stayed on screen, never
 * interactive, while React retried hydrating it at 96 % of a core. The head script reloads once, and
 * says so if that does not help (lib/preferences/head-script.ts, components/shell/load-failure.tsx).
 */

const PAGE = "/namespaces/default/runs";

/** Answers the first chunk the page asks for with 404 (always, or only the first time). */
async function dropFirstChunk(page: Page, opts: { always: boolean }): Promise<{ dropped: () => string[] }> {
  let victim: string | null = null;
  const dropped: string[] = [];
  await page.route("**/_next/static/chunks/**/*.js", async (route: Route) => {
    const url = new URL(route.request().url()).pathname;
    victim ??= url;
    if (url === victim && (opts.always || dropped.length === 0)) {
      dropped.push(url);
      await route.fulfill({ status: 404, contentType: "text/plain", body: "gone" });
      return;
    }
    await route.continue();
  });
  return { dropped: () => dropped };
}

/** Interactive means React runs the page: the theme control changes the theme. */
async function expectInteractive(page: Page): Promise<void> {
  await page.getByRole("group", { name: "Theme" }).getByRole("button", { name: "Dark" }).click();
  await expect(page.locator("html")).toHaveClass(/\bdark\b/);
}

/** Documents the page asked for (a reload before `load` fired never counts as a load event). */
function countLoads(page: Page): () => number {
  let loads = 0;
  page.on("request", (request) => {
    if (request.isNavigationRequest() && request.frame() === page.mainFrame()) loads += 1;
  });
  return () => loads;
}

test("a page whose script failed to load once reloads itself and works", async ({ page }) => {
  const loads = countLoads(page);
  const { dropped } = await dropFirstChunk(page, { always: false });
  await page.goto(PAGE);
  await expect.poll(loads).toBe(2);
  expect(dropped()).toHaveLength(1);
  await expect(page.getByTestId("load-failed")).toBeHidden();
  await expectInteractive(page);
});

test("a page whose script keeps failing says so after one reload, and its link reloads", async ({ page }) => {
  const loads = countLoads(page);
  const { dropped } = await dropFirstChunk(page, { always: true });
  await page.goto(PAGE);
  const alert = page.getByTestId("load-failed");
  await expect(alert).toBeVisible();
  await expect(alert).toHaveAttribute("role", "alert");
  await expect(alert).toContainText("This page did not finish loading");
  expect(loads()).toBe(2);
  expect(dropped()).toHaveLength(2);
  // What the server rendered stays readable underneath.
  await expect(page.getByRole("navigation", { name: "Primary" })).toBeVisible();

  const reload = alert.getByRole("link", { name: "Reload the page" });
  await expect(reload).toHaveAttribute("href", page.url());
  await page.unroute("**/_next/static/chunks/**/*.js");
  await reload.click();
  await expect.poll(loads).toBe(3);
  await expect(alert).toBeHidden();
  await expectInteractive(page);
});
