import { mkdirSync } from "node:fs";
import { expect, test } from "@playwright/test";
import type { Page } from "@playwright/test";
import en from "../messages/en.json";
import ptBR from "../messages/pt-BR.json";
import de from "../messages/de.json";
import fr from "../messages/fr.json";
import ja from "../messages/ja.json";
import es from "../messages/es.json";
import uk from "../messages/uk.json";
import zhHans from "../messages/zh-Hans.json";
import { catalogLeaves } from "../lib/i18n/catalog-leaves";
import type { CatalogTree } from "../lib/i18n/catalog-leaves";
import { LOCALE_COOKIE } from "../lib/preferences";
import { snapBothThemes } from "./operator-fixtures";
import { seededRuns } from "./run-view-seed";
import type { SeededRunViewRuns } from "./run-view-seed";
import { hydrated } from "./page-ready";

/**
 * Issue 16: every screen in each locale, with no English left among the console's own strings. The
 * locale cookie is set as the switcher sets it; each screen's text nodes and labels are compared with
 * the English catalog: a text that is exactly an English message the locale words differently is a
 * leftover (a hard-coded string, or a key the catalog falls back on). Server-provided text (ids,
 * types, event names) is never a catalog message, so it cannot match.
 */

const CATALOGS: Record<string, CatalogTree> = { "pt-BR": ptBR, de, fr, ja, es, uk, "zh-Hans": zhHans };

/** English messages without arguments (a formatted one cannot be matched as a whole) the locale words differently. */
function englishLeftovers(catalog: CatalogTree): string[] {
  const theirs = new Set(catalogLeaves(catalog).values());
  const out = new Set<string>();
  for (const message of catalogLeaves(en).values()) {
    const text = message.trim();
    if (!text || /[{}]/.test(text) || theirs.has(text)) continue;
    out.add(text);
  }
  return [...out];
}

/** Every element's whole text, and its aria-label, title and placeholder, whitespace collapsed. */
function shownTexts(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const texts: string[] = [];
    const squash = (s: string | null | undefined) => (s ?? "").replace(/\s+/g, " ").trim();
    for (const el of document.body.querySelectorAll("*")) {
      // Server codes shown as the server names them (failure_category) are server-provided text.
      if (el.closest("script, style, noscript, template, [data-code]")) continue;
      // An element whose whole text is server codes (a table cell holding one) is server text too.
      const codes = squash([...el.querySelectorAll("[data-code]")].map((code) => code.textContent).join(" "));
      const text = squash(el.textContent);
      if (text !== codes) texts.push(text);
      for (const name of ["aria-label", "title", "placeholder"]) texts.push(squash(el.getAttribute(name)));
    }
    texts.push(squash(document.title));
    return [...new Set(texts.filter(Boolean))];
  });
}

const SCREENSHOTS = "test-results/screenshots";

/**
 * Buttons, tabs and table headers whose text does not fit their box (German runs longest, Japanese
 * cannot break at spaces): clipped or spilling over a neighbour, either way the operator cannot read it.
 */
function clippedLabels(page: Page): Promise<string[]> {
  return page.evaluate(() =>
    [...document.body.querySelectorAll("button, [role=tab], th")]
      .filter((el) => {
        const box = el as HTMLElement;
        return box.offsetParent !== null && box.clientWidth > 0 && box.scrollWidth > box.clientWidth + 1;
      })
      .map((el) => `${el.tagName.toLowerCase()} "${(el.textContent ?? "").replace(/\s+/g, " ").trim()}"`),
  );
}

/**
 * Checks a screen and keeps full-page screenshots of it, light and dark, to look for overflow by eye.
 * `snap: false` for a page whose theme does not follow the emulated colour scheme (the not-found page
 * Kikwiflow answers without an engine).
 */
async function expectNoEnglish(page: Page, leftovers: Set<string>, screen: string, snap = true) {
  const found = (await shownTexts(page)).filter((text) => leftovers.has(text));
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
  const lang = await page.locator("html").getAttribute("lang");
  if (snap) await snapBothThemes(page, `locale-${lang}-${screen.replace(/\W+/g, "-")}`);
  expect(found, `English left on ${screen}`).toEqual([]);
  expect(await clippedLabels(page), `labels that do not fit on ${screen}`).toEqual([]);
}

test.beforeAll(() => {
  mkdirSync(SCREENSHOTS, { recursive: true });
});

for (const [locale, catalog] of Object.entries(CATALOGS)) {
  test.describe(`the console in ${locale}`, () => {
    const leftovers = new Set(englishLeftovers(catalog));

    test.beforeEach(async ({ context, baseURL }) => {
      await context.addCookies([{ name: LOCALE_COOKIE, value: locale, url: baseURL ?? "http://127.0.0.1" }]);
    });

    test("overview, runs and attention show no English leftover", async ({ page }) => {
      test.slow();
      await page.goto("/");
      await expect(page.locator("html")).toHaveAttribute("lang", locale);
      await hydrated(page);
      await expect(page.getByTestId("overview-live")).not.toBeEmpty({ timeout: 30_000 });
      await expectNoEnglish(page, leftovers, "overview");

      await page.goto("/runs");
      await hydrated(page);
      await expect(page.getByTestId("runs-row").first()).toBeVisible({ timeout: 30_000 });
      await expectNoEnglish(page, leftovers, "runs");

      await page.goto("/attention");
      await hydrated(page);
      // Scanning ends with "…" in every catalog; the finished scan's summary does not.
      await expect(page.getByTestId("scan-status").locator("p").first()).not.toContainText("…", { timeout: 60_000 });
      await expectNoEnglish(page, leftovers, "attention");

      await page.goto("/namespaces/default/failures");
      await hydrated(page);
      await expect(page.getByTestId("failures-limits")).toBeVisible({ timeout: 60_000 });
      await expectNoEnglish(page, leftovers, "failures");
    });

    test("schedules, workers, system and kikwiflow show no English leftover", async ({ page }) => {
      test.slow();
      const said = catalogLeaves(catalog);
      // Nothing still loading: the catalog's own "Loading…" and the schedules' last-run reading.
      const settled = async () => {
        for (const key of ["ui.loading", "schedules.health.checking", "namespace.loading"])
          await expect(page.getByText(said.get(key) ?? key, { exact: true })).toHaveCount(0, { timeout: 30_000 });
      };

      await page.goto("/namespaces/default/schedules");
      await hydrated(page);
      await expect(page.getByTestId("schedules-list")).toBeVisible({ timeout: 30_000 });
      await settled();
      await expectNoEnglish(page, leftovers, "schedules");

      await page.goto("/namespaces/default/workers");
      await hydrated(page);
      await expect(page.getByTestId("queues-table")).toBeVisible({ timeout: 30_000 });
      await settled();
      await expectNoEnglish(page, leftovers, "workers");

      await page.goto("/namespaces/default/system");
      await hydrated(page);
      await expect(page.getByTestId("repair-total")).toBeVisible({ timeout: 30_000 });
      await settled();
      await expectNoEnglish(page, leftovers, "system");

      // The Kikwiflow list with an engine, else the page that says how to connect one: either way in the locale.
      await page.goto("/kikwiflow");
      await hydrated(page);
      const engine = page.getByTestId("kikwiflow-instances");
      await expect(engine.or(page.getByTestId("kikwiflow-unconfigured"))).toBeVisible({ timeout: 30_000 });
      await settled();
      await expectNoEnglish(page, leftovers, "kikwiflow", await engine.isVisible());
    });

    test("a run's every view shows no English leftover", async ({ page }) => {
      test.slow();
      const seeded = seededRuns();
      test.skip(seeded === null, "the run-view runs are seeded into the embedded e2e server only");
      const { workflowId, runId } = (seeded as SeededRunViewRuns).paged;
      await page.goto(
        `/namespaces/default/workflows/${encodeURIComponent(workflowId)}/runs/${encodeURIComponent(runId)}`,
      );
      await hydrated(page);
      await expect(page.getByTestId("run-view-progress")).toHaveAttribute("data-state", "done", { timeout: 60_000 });
      await expectNoEnglish(page, leftovers, "run detail");
      const tabs = await page.getByRole("tab").all();
      for (const [index, tab] of tabs.entries()) {
        await tab.click();
        await expect(tab).toHaveAttribute("aria-selected", "true");
        await expectNoEnglish(page, leftovers, `run detail view ${index + 1}`);
      }
    });
  });
}
