import { mkdirSync } from "node:fs";
import { expect, test } from "@playwright/test";
import type { Page } from "@playwright/test";
import { LOCALE_COOKIE } from "../lib/preferences";
import { LOCALES } from "../lib/i18n/locales";
import { snapBothThemes } from "./operator-fixtures";
import { hydrated } from "./page-ready";
import { e2eScenarios } from "./run-scenarios";

/**
 * Issue 37 (items 14 and 15): on a phone the navigation cut "Failures" off and the Overview's charts
 * spilled past their panels. Every nav item must be on screen and not clipped, and every chart must
 * lie inside its panel, at a phone's width and a desktop's, in every language (German has the longest
 * words, Japanese no spaces to break at).
 */

const VIEWPORTS = {
  phone: { width: 390, height: 844 },
  desktop: { width: 1440, height: 900 },
} as const;

/** Nav links whose box is not wholly inside the window, or whose label does not fit its box. */
function navProblems(page: Page): Promise<string[]> {
  return page.evaluate(() =>
    [...document.querySelectorAll<HTMLElement>("nav[aria-label] a")].flatMap((link) => {
      const box = link.getBoundingClientRect();
      const name = (link.textContent ?? "").trim();
      const problems: string[] = [];
      if (box.left < 0 || box.right > window.innerWidth + 0.5 || box.width === 0) {
        problems.push(`${name}: ${Math.round(box.left)}–${Math.round(box.right)} outside 0–${window.innerWidth}`);
      }
      if (link.scrollWidth > link.clientWidth + 1) problems.push(`${name}: label clipped`);
      return problems;
    }),
  );
}

/** Charts whose drawing reaches past their panel's edges (each chart box and its panel compared). */
function chartOverflow(page: Page): Promise<{ charts: number; problems: string[] }> {
  return page.evaluate(() => {
    const charts = [...document.querySelectorAll<HTMLElement>('[data-testid^="chart-"]')];
    const problems = charts.flatMap((chart) => {
      const panel = chart.closest("section")?.getBoundingClientRect();
      const svg = chart.querySelector(".recharts-wrapper > svg.recharts-surface")?.getBoundingClientRect();
      if (!panel || !svg) return [`${chart.dataset.testid}: not drawn`];
      return svg.left < panel.left - 0.5 || svg.right > panel.right + 0.5
        ? [
            `${chart.dataset.testid}: ${Math.round(svg.left)}–${Math.round(svg.right)} in ${Math.round(panel.left)}–${Math.round(panel.right)}`,
          ]
        : [];
    });
    return { charts: charts.length, problems };
  });
}

/** The Failed bar's painted colour, and the console's danger colour in the current theme. */
function failedBarColor(page: Page): Promise<{ bar: string; danger: string }> {
  return page.evaluate(() => {
    const probe = document.createElement("span");
    probe.style.color = "var(--bad)";
    document.body.append(probe);
    const danger = getComputedStyle(probe).color;
    probe.remove();
    // The one bar given the danger token (chart-style.ts gives it to Failed only), as the browser paints it.
    const bars = document.querySelectorAll('[data-testid="chart-runs-by-status"] path[fill="var(--bad)"]');
    return { bar: bars.length === 1 && bars[0] ? getComputedStyle(bars[0]).fill : `${bars.length} bars`, danger };
  });
}

test.beforeAll(async () => {
  mkdirSync("test-results/screenshots", { recursive: true });
  // A failed, a retried and a completed run, so that the Failed bar is drawn.
  await e2eScenarios();
});

for (const locale of LOCALES) {
  for (const [name, viewport] of Object.entries(VIEWPORTS)) {
    test(`${locale} on a ${name}: every nav item is on screen and the Overview charts stay in their panels`, async ({
      page,
      context,
      baseURL,
    }) => {
      test.slow();
      await context.addCookies([{ name: LOCALE_COOKIE, value: locale, url: baseURL ?? "http://127.0.0.1" }]);
      await page.setViewportSize(viewport);
      await page.goto("/");
      await expect(page.locator("html")).toHaveAttribute("lang", locale);
      await hydrated(page);

      // Overview, Runs, Attention, Failures, System, Workers (and Kikwiflow when an engine is configured):
      // each wholly on screen, none scrolled away.
      const links = page.getByRole("navigation").first().getByRole("link");
      await expect(links.nth(5)).toBeAttached();
      for (const link of await links.all()) await expect(link).toBeInViewport({ ratio: 1 });
      expect(await navProblems(page)).toEqual([]);

      // Four charts: runs by status, then the sampled runs, tasks and activities.
      await expect(page.locator(".recharts-wrapper > svg.recharts-surface")).toHaveCount(4, { timeout: 30_000 });
      const { charts, problems } = await chartOverflow(page);
      expect(charts).toBe(4);
      expect(problems).toEqual([]);
      // Nothing else on the page is wider than the window either (no sideways scrolling).
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(viewport.width);

      // The Failed bar is painted in the console's danger colour, in the light theme and the dark one.
      for (const scheme of ["light", "dark"] as const) {
        await page.emulateMedia({ colorScheme: scheme });
        await page.waitForFunction(
          (dark) => document.documentElement.classList.contains("dark") === dark,
          scheme === "dark",
        );
        const { bar, danger } = await failedBarColor(page);
        expect(bar, scheme).toBe(danger);
      }
      await page.emulateMedia({ colorScheme: "light" });

      await snapBothThemes(page, `mobile-${locale}-${name}-overview`);
    });
  }
}
