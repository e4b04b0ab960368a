import { mkdirSync } from "node:fs";
import { expect, test } from "@playwright/test";
import type { APIRequestContext, Page } from "@playwright/test";
import { BULK_ACTIVITIES, SCENARIO_IDS, e2eScenarios } from "./run-scenarios";

const SCREENSHOTS = "test-results/screenshots";
const dwHost = process.env.E2E_DW_HOST ?? "";

const runPath = (workflowId: string, runId: string) =>
  `/namespaces/default/workflows/${encodeURIComponent(workflowId)}/runs/${encodeURIComponent(runId)}`;

async function setTheme(page: Page, baseURL: string | undefined, theme: "light" | "dark") {
  await page.context().addCookies([{ name: "bw-theme", value: theme, url: baseURL ?? "" }]);
}

/**
 * The page answers 404 when the server's "not found" comes within the header wait (decision 0046);
 * on a loaded machine one answer may miss it and stream a 200 with the same state, so a few tries.
 */
async function expectNotFoundStatus(request: APIRequestContext, path: string) {
  await expect.poll(async () => (await request.get(path, { maxRedirects: 0 })).status(), { timeout: 20_000 }).toBe(404);
}

test.describe("run detail", () => {
  test.skip(!dwHost, "no Durable Workflow server for e2e");

  test.beforeAll(async () => {
    // The scenarios run real workers: a few hundred activities take longer than the default hook timeout.
    test.setTimeout(120_000);
    mkdirSync(SCREENSHOTS, { recursive: true });
    await e2eScenarios();
  });

  test("a non-retryable failure shows its Category and the non-retryable badge", async ({ page, baseURL }) => {
    const runs = await e2eScenarios();
    await setTheme(page, baseURL, "light");
    await page.goto(runPath(SCENARIO_IDS.declined, runs.declined));

    const header = page.getByTestId("run-header");
    await expect(header.getByTestId("run-workflow-id")).toHaveText(SCENARIO_IDS.declined);
    await expect(header.getByTestId("run-id")).toHaveText(runs.declined);
    await expect(header.locator("[data-status]").first()).toHaveText("failed");
    await expect(header.getByTestId("run-liveness")).toContainText("Closed");

    const table = page.getByTestId("exceptions-table");
    const activityRow = table.getByTestId("exception-row").filter({ hasText: "ChargeCard" });
    await expect(activityRow).toHaveCount(1);
    await expect(activityRow.getByTestId("exception-category")).toContainText("activity");
    await expect(activityRow.getByTestId("non-retryable-badge")).toHaveText("non-retryable");
    await expect(activityRow).toContainText("PaymentDeclined");
    await expect(activityRow).toContainText("Card was declined by the issuer (insufficient funds).");

    // Rows derived from the whole history replace debug's ten most recent; a row expands to its details as text.
    await expect(table).toHaveAttribute("data-complete", "true", { timeout: 30_000 });
    await activityRow.getByRole("button", { name: "Show details" }).click();
    const detail = page.getByTestId("exception-detail").first();
    await expect(detail).toContainText("PaymentDeclined");
    await expect(detail).toContainText("Trace");
    await page.screenshot({ path: `${SCREENSHOTS}/run-failed-light.png`, fullPage: true });

    await setTheme(page, baseURL, "dark");
    await page.reload();
    await expect(page.getByTestId("non-retryable-badge").first()).toBeVisible();
    await expect(page.locator("html")).toHaveClass(/\bdark\b/);
    await page.screenshot({ path: `${SCREENSHOTS}/run-failed-dark.png`, fullPage: true });
  });

  test("a retried activity shows each attempt's error and the backoff that followed", async ({ page, baseURL }) => {
    const runs = await e2eScenarios();
    await setTheme(page, baseURL, "light");
    await page.goto(`${runPath(SCENARIO_IDS.retried, runs.retried)}?view=activities`);

    const activity = page.getByTestId("ledger-activity").filter({ hasText: "ReserveStock" });
    await expect(activity).toBeVisible();
    const attempts = activity.getByTestId("attempt-row");
    await expect(attempts).toHaveCount(3);
    for (const n of [1, 2]) {
      const row = activity.locator(`[data-attempt="${n}"]`);
      await expect(row.locator("[data-status]")).toHaveText("failed");
      await expect(row.getByTestId("attempt-failure")).toContainText("WarehouseBusy");
      await expect(row.getByTestId("attempt-failure")).toContainText(`Warehouse busy on attempt ${n}.`);
      await expect(row.getByTestId("attempt-backoff")).toContainText(`1 s, then attempt ${n + 1} due`);
    }
    const last = activity.locator('[data-attempt="3"]');
    await expect(last.locator("[data-status]")).toHaveText("completed");
    await expect(last.getByTestId("attempt-backoff")).toHaveText("–");
    await expect(activity).toContainText("attempt 3 of 3");
    // Retried attempts are not failures of the run: the exceptions table stays empty.
    await expect(page.getByTestId("exception-row")).toHaveCount(0);
    await page.screenshot({ path: `${SCREENSHOTS}/run-activities-light.png`, fullPage: true });

    await page.getByRole("tab", { name: "Timeline" }).click();
    await expect(page).not.toHaveURL(/view=/);
    const chart = page.getByTestId("timeline-chart");
    await expect(chart.getByTestId("timeline-retry")).toHaveCount(2);
    // "#n" is drawn only where it has room before the next bar or the lane's end (issue 15 item 16: labels
    // overlapped): the first two attempts have a 1 s backoff after them; the last ends the run at the
    // axis' right edge, so its number is in its title only.
    await expect(chart.getByTestId("timeline-attempt-label")).toHaveText(["#1", "#2"]);
    await expect(chart.getByTestId("timeline-bar").filter({ hasText: "#3" })).toHaveCount(0);
    await expect(chart.locator('[data-testid="timeline-bar"][title*="#3"]')).toHaveCount(1);
    await expect(chart).not.toContainText("timer timer");
    await page.screenshot({ path: `${SCREENSHOTS}/run-timeline-light.png`, fullPage: true });

    await page.getByRole("button", { name: "Event list" }).click();
    await expect(page.getByTestId("timeline-list")).toContainText("Scheduled retry 2 for ReserveStock.");

    await setTheme(page, baseURL, "dark");
    await page.goto(`${runPath(SCENARIO_IDS.retried, runs.retried)}?view=history`);
    const history = page.getByTestId("history");
    await expect(history.getByTestId("history-count")).toContainText("of 10 events");
    // The activity's Avro arguments are decoded by the console server (the page's CSP forbids avsc's eval).
    await history
      .getByTestId("history-list")
      .getByRole("button")
      .filter({ hasText: "ActivityScheduled" })
      .first()
      .click();
    await expect(page.getByTestId("history-fields")).toContainText("sku-1");
    await expect(page.getByTestId("history-fields")).toContainText("decoded");
    await expect(page.getByTestId("history-decode-failed")).toHaveCount(0);
    // The filter lives in the URL; the box shows it once the router has applied the new search params.
    await history.getByTestId("history-failures").click();
    await expect(history.getByTestId("history-failures")).toBeChecked();
    await expect(page).toHaveURL(/hfail=1/);
    const list = history.getByTestId("history-list");
    await expect(list.getByRole("listitem")).toHaveCount(2);
    await expect(list).toContainText("ActivityRetryScheduled");
    await list.getByRole("button").first().click();
    await expect(page.getByTestId("history-payload")).toContainText("retry_backoff_seconds");
    await page.screenshot({ path: `${SCREENSHOTS}/run-history-dark.png`, fullPage: true });
  });

  test("a long history stays virtualized: a few dozen rows in the DOM, every event reachable", async ({
    page,
    baseURL,
  }) => {
    const runs = await e2eScenarios();
    // Header and exceptions come from describe + debug in the first HTML, not from the history.
    const started = Date.now();
    await page.goto(runPath(SCENARIO_IDS.bulk, runs.bulk), { waitUntil: "commit" });
    await expect(page.getByTestId("run-header")).toBeVisible();
    await expect(page.getByTestId("exceptions")).toBeVisible();
    const headerMs = Date.now() - started;
    test.info().annotations.push({ type: "header-and-exceptions-visible-ms", description: String(headerMs) });
    console.log(
      `run detail of a ${3 * BULK_ACTIVITIES}+ event run: header and exceptions visible after ${headerMs} ms`,
    );

    await page.goto(`${runPath(SCENARIO_IDS.bulk, runs.bulk)}?view=history`);
    const history = page.getByTestId("history");
    const total = 3 * BULK_ACTIVITIES;
    await expect(history.getByTestId("history-count")).toHaveText(new RegExp(`^([\\d,]+) of \\1 events$`), {
      timeout: 20_000,
    });
    const count = Number((await history.getByTestId("history-count").textContent())?.split(" ")[0]?.replace(/,/g, ""));
    expect(count).toBeGreaterThan(total);
    const list = history.getByTestId("history-list");
    const domRows = await list.getByRole("listitem").count();
    console.log(`history of ${count} events: ${domRows} rows in the DOM`);
    expect(domRows).toBeLessThanOrEqual(150);
    await list.evaluate((element) => element.scrollTo({ top: element.scrollHeight }));
    await expect(list).toContainText("WorkflowCompleted");
    expect(await list.getByRole("listitem").count()).toBeLessThanOrEqual(150);
    // The activity ledger copes with hundreds of executions: pages of 50, every one reachable.
    await page.getByRole("tab", { name: "Activities" }).click();
    const ledger = page.getByTestId("activities-ledger");
    await expect(ledger).toHaveAttribute("data-complete", "true", { timeout: 30_000 });
    await expect(ledger).toHaveAttribute("data-total", String(BULK_ACTIVITIES));
    const activities = page.getByTestId("ledger-activity");
    const range = page.getByTestId("activities-range");
    const next = page.getByRole("button", { name: "Next 50" }).first();
    await expect(activities).toHaveCount(50);
    await expect(range).toHaveText(`Activities 1–50 of ${BULK_ACTIVITIES}`);
    await page.screenshot({ path: `${SCREENSHOTS}/run-activities-more-light.png` });
    for (let from = 51; from <= BULK_ACTIVITIES; from += 50) {
      await next.click();
      const to = Math.min(from + 49, BULK_ACTIVITIES);
      await expect(range).toHaveText(`Activities ${from}–${to} of ${BULK_ACTIVITIES}`);
      await expect(activities).toHaveCount(to - from + 1);
    }
    await expect(next).toBeDisabled();
    await setTheme(page, baseURL, "dark");
    await page.reload();
    await page.getByRole("tab", { name: "Activities" }).click();
    await expect(page.locator("html")).toHaveClass(/\bdark\b/);
    await expect(range).toBeVisible();
    await page.screenshot({ path: `${SCREENSHOTS}/run-activities-more-dark.png` });
  });

  test("the history's type filter takes several types, kept in the URL, from mouse and keyboard", async ({
    page,
    baseURL,
  }) => {
    const runs = await e2eScenarios();
    await setTheme(page, baseURL, "light");
    // A link from before the filter took several types: one `htype` still works.
    await page.goto(`${runPath(SCENARIO_IDS.retried, runs.retried)}?view=history&htype=ActivityRetryScheduled`);
    const history = page.getByTestId("history");
    const list = history.getByTestId("history-list");
    const button = history.getByTestId("history-type");
    await expect(history.getByTestId("history-count")).toHaveText("2 of 10 events");
    await expect(button).toContainText("ActivityRetryScheduled");
    await expect(button).toHaveAccessibleName("Event types ActivityRetryScheduled");

    // Keyboard: Enter opens the group and focuses its first box; arrows move, Space ticks, Escape closes.
    await button.focus();
    await page.keyboard.press("Enter");
    const panel = history.getByTestId("history-type-panel");
    await expect(panel).toBeVisible();
    await expect(button).toHaveAttribute("aria-expanded", "true");
    await expect(panel).toHaveAccessibleName("Event types");
    const completed = panel.getByRole("checkbox", { name: /^ActivityCompleted\b/ });
    await expect(completed).toBeFocused();
    await expect(panel.getByRole("checkbox", { name: /^ActivityRetryScheduled\b/ })).toBeChecked();
    await page.keyboard.press("Space");
    await expect(completed).toBeChecked();
    await expect(page).toHaveURL(/[?&]htype=ActivityCompleted%2CActivityRetryScheduled(&|$)/);
    await expect(history.getByTestId("history-count")).toHaveText("3 of 10 events");
    await expect(list.getByRole("listitem")).toHaveCount(3);
    for (const text of await list.getByRole("listitem").allTextContents())
      expect(text).toMatch(/ActivityCompleted|ActivityRetryScheduled/);
    await page.keyboard.press("ArrowDown");
    await expect(panel.getByRole("checkbox").nth(1)).toBeFocused();
    await page.keyboard.press("End");
    await expect(panel.getByRole("checkbox").last()).toBeFocused();
    await page.keyboard.press("Home");
    await expect(completed).toBeFocused();
    await page.screenshot({ path: `${SCREENSHOTS}/run-history-types-light.png`, fullPage: true });
    await page.keyboard.press("Escape");
    await expect(panel).toBeHidden();
    await expect(button).toBeFocused();
    await expect(button).toContainText("2 types");

    // The choice survives a reload (it is in the URL), in dark mode too; the mouse works the same.
    await setTheme(page, baseURL, "dark");
    await page.reload();
    await expect(history.getByTestId("history-count")).toHaveText("3 of 10 events");
    await expect(history.getByTestId("history-type-chip")).toHaveText([
      "ActivityCompleted×",
      "ActivityRetryScheduled×",
    ]);
    await button.click();
    await expect(panel.getByRole("checkbox", { checked: true })).toHaveCount(2);
    await page.screenshot({ path: `${SCREENSHOTS}/run-history-types-dark.png`, fullPage: true });
    await panel.getByRole("checkbox", { name: /^WorkflowCompleted\b/ }).click();
    await expect(history.getByTestId("history-count")).toHaveText("4 of 10 events");
    await expect(page).toHaveURL(/[?&]htype=ActivityCompleted%2CActivityRetryScheduled%2CWorkflowCompleted(&|$)/);
    // A click outside closes the group; a chip removes its type.
    await history.getByTestId("history-count").click();
    await expect(panel).toBeHidden();
    await history.getByRole("button", { name: "Stop showing ActivityRetryScheduled" }).click();
    await expect(history.getByTestId("history-count")).toHaveText("2 of 10 events");
    await expect(page).toHaveURL(/[?&]htype=ActivityCompleted%2CWorkflowCompleted(&|$)/);
    await button.click();
    await panel.getByRole("button", { name: "Show all" }).click();
    await expect(history.getByTestId("history-count")).toHaveText("10 of 10 events");
    await expect(page).not.toHaveURL(/htype=/);
  });

  test("← and → page through the history a screenful at a time, within the filter", async ({ page }) => {
    const runs = await e2eScenarios();
    await page.goto(`${runPath(SCENARIO_IDS.bulk, runs.bulk)}?view=history`);
    const history = page.getByTestId("history");
    await expect(history.getByTestId("history-count")).toHaveText(/^([\d,]+) of \1 events$/, { timeout: 20_000 });
    const list = history.getByTestId("history-list");
    const selectedRow = list.locator('[aria-pressed="true"]');
    const payload = page.getByTestId("history-payload");
    const selectedItem = list.locator('[role="listitem"]:has([aria-pressed="true"])');
    // A page is the rows wholly in view: the list is 480 px tall (less its border) and rows are 30 px.
    const perPage = Math.floor((await list.evaluate((element) => element.clientHeight)) / 30);
    expect(perPage).toBeGreaterThanOrEqual(14);

    // Nothing selected: → selects the first row in view.
    await page.keyboard.press("ArrowRight");
    await expect(page).toHaveURL(/[?&]event=1(&|$)/);
    await expect(payload).toContainText(/^#1 \w+/);
    await page.keyboard.press("ArrowRight");
    await expect(page).toHaveURL(new RegExp(`[?&]event=${1 + perPage}(&|$)`));
    await expect(selectedRow).toHaveAttribute("data-sequence", String(1 + perPage));
    await expect(selectedRow).toBeInViewport();
    await expect(payload).toContainText(new RegExp(`^#${1 + perPage} \\w+`));
    await page.keyboard.press("l");
    await expect(page).toHaveURL(new RegExp(`[?&]event=${1 + 2 * perPage}(&|$)`));
    await expect(selectedRow).toBeInViewport();
    // The list scrolled a page with the selection: the first row is out of view.
    expect(await list.evaluate((element) => element.scrollTop)).toBeGreaterThan(0);
    await page.keyboard.press("ArrowLeft");
    await expect(page).toHaveURL(new RegExp(`[?&]event=${1 + perPage}(&|$)`));
    // Presses in quick succession each step from the previous one; ← stops at the first row.
    await page.keyboard.press("ArrowLeft");
    await page.keyboard.press("h");
    await expect(page).toHaveURL(/[?&]event=1(&|$)/);
    await expect(selectedRow).toHaveAttribute("data-sequence", "1");
    expect(await list.evaluate((element) => element.scrollTop)).toBe(0);

    // With a filter, a page is 16 of the shown rows: the 17th ActivityCompleted, not the 17th event.
    await page.goto(`${runPath(SCENARIO_IDS.bulk, runs.bulk)}?view=history&htype=ActivityCompleted`);
    await expect(history.getByTestId("history-count")).toHaveText(/^[\d,]+ of [\d,]+ events$/, { timeout: 20_000 });
    await page.keyboard.press("ArrowRight");
    await expect(selectedRow).toContainText("ActivityCompleted");
    await expect(selectedItem).toHaveAttribute("data-index", "0");
    await page.keyboard.press("ArrowRight");
    await expect(selectedItem).toHaveAttribute("data-index", String(perPage));
    await expect(selectedRow).toContainText("ActivityCompleted");
    await expect(payload).toContainText("ActivityCompleted");
  });

  test("the workflow route opens the current run, and the export downloads unchanged", async ({ page, request }) => {
    const runs = await e2eScenarios();
    await page.goto(`/workflows/${encodeURIComponent(SCENARIO_IDS.retried)}`);
    await expect(page.getByTestId("run-id")).toHaveText(runs.retried);
    await expect(page.getByTestId("run-output")).toContainText('"reserved": true');

    const href = `${runPath(SCENARIO_IDS.retried, runs.retried)}/export`;
    await expect(page.getByTestId("download-export")).toHaveAttribute("href", href);
    const response = await request.get(href);
    expect(response.status()).toBe(200);
    expect(response.headers()["content-disposition"]).toMatch(/^attachment; filename="history-export-/);
    const bundle = (await response.json()) as {
      schema: string;
      workflow: { instance_id: string };
      integrity: { checksum: string };
    };
    expect(bundle.schema).toBe("durable-workflow.v2.history-export");
    expect(bundle.workflow.instance_id).toBe(SCENARIO_IDS.retried);
    expect(bundle.integrity.checksum).toMatch(/^[0-9a-f]{64}$/);
  });

  test("an unknown workflow says so, and ids render as text", async ({ page, request }) => {
    // Literal, valid-looking escapes in the id: decoding it twice would turn `%2F` into `/`.
    const hostile = "<img src=x onerror=alert(1)>/a%2Fb%41 ✓";
    // A missing workflow is a 404 to the browser, crawlers and scripts, not a 200 page that says so.
    await expectNotFoundStatus(request, `/namespaces/default/workflows/${encodeURIComponent(hostile)}`);
    await page.goto(`/workflows/${encodeURIComponent(hostile)}`);
    const error = page.getByTestId("dw-error");
    await expect(error).toBeVisible();
    await expect(error).toHaveAttribute("data-reason", /instance_not_found|run_not_found|route_not_found|not_found/);
    await expect(page.getByRole("heading", { level: 1 })).toContainText(hostile);
    await expect(page.locator("img[src=x]")).toHaveCount(0);
    await expect(page.getByRole("link", { name: "Back to the runs list" })).toHaveAttribute(
      "href",
      "/namespaces/default/runs",
    );
  });

  test("a 3,000-character id keeps the not-found message on screen, with a way back", async ({ page }) => {
    const long = "x".repeat(3_000);
    // No status check here: the 404 goes out only when the server answers within the header wait
    // (decision 0046), and this long id is read slower; the state on screen is the same either way.
    await page.goto(`/namespaces/default/workflows/${long}`);
    const error = page.getByTestId("dw-error");
    await expect(error).toBeInViewport();
    await expect(page.getByRole("heading", { level: 1 })).toHaveAttribute("title", long);
    await page.getByRole("link", { name: "Back to the runs list" }).click();
    await expect(page).toHaveURL("/namespaces/default/runs");
  });

  test("a not-found page follows a dark OS like every other page", async ({ page }) => {
    // A 404 decided before streaming is Next's error document, where the layout's head script never runs.
    await page.emulateMedia({ colorScheme: "dark" });
    const path = "/namespaces/default/workflows/no-such-workflow-in-the-dark";
    await expect.poll(async () => (await page.goto(path))?.status(), { timeout: 20_000 }).toBe(404);
    await expect(page.getByTestId("dw-error")).toBeVisible();
    await expect(page.locator("html")).toHaveClass(/\bdark\b/);
  });

  test("an unknown run of a known workflow answers 404 with the not-found state", async ({ page, request }) => {
    await e2eScenarios();
    await expectNotFoundStatus(request, runPath(SCENARIO_IDS.retried, "no-such-run"));
    await page.goto(runPath(SCENARIO_IDS.retried, "no-such-run"));
    await expect(page.getByTestId("dw-error")).toBeVisible();
    await expect(page.getByRole("link", { name: "Back to the runs list" })).toBeVisible();
  });

  test("the run's tabs are in the first screen, and no export jargon is shown", async ({ page }) => {
    const runs = await e2eScenarios();
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.goto(runPath(SCENARIO_IDS.declined, runs.declined));
    await expect(page.getByTestId("exceptions-table")).toHaveAttribute("data-complete", "true", { timeout: 30_000 });
    await expect(page.getByRole("tablist", { name: "Run views" })).toBeInViewport({ ratio: 1 });
    await expect(page.getByTestId("exception-row").first()).toBeVisible();
    await expect(page.getByText(/only the export has|in the export only/i)).toHaveCount(0);
  });

  test("the run tabs follow the WAI-ARIA tabs pattern: arrows, Home and End move and select", async ({ page }) => {
    const runs = await e2eScenarios();
    await page.goto(runPath(SCENARIO_IDS.retried, runs.retried));
    const tabs = page.getByRole("tablist", { name: "Run views" }).getByRole("tab");
    const timeline = tabs.filter({ hasText: "Timeline" });
    await expect(timeline).toHaveAttribute("aria-selected", "true");
    await expect(timeline).toHaveAttribute("tabindex", "0");
    await expect(tabs.filter({ hasText: "Activities" })).toHaveAttribute("tabindex", "-1");
    // The tabs control the one panel, which names the selected tab as its label.
    await expect(timeline).toHaveAttribute("aria-controls", "run-tab-panel");
    await expect(page.getByRole("tabpanel")).toHaveAttribute("aria-labelledby", "run-tab-timeline");

    await timeline.focus();
    await page.keyboard.press("ArrowRight");
    const activities = tabs.filter({ hasText: "Activities" });
    await expect(activities).toBeFocused();
    await expect(activities).toHaveAttribute("aria-selected", "true");
    await expect(page).toHaveURL(/view=activities/);
    await expect(page.getByTestId("ledger-activity").first()).toBeVisible();

    await page.keyboard.press("End");
    const last = tabs.last();
    await expect(last).toBeFocused();
    await expect(last).toHaveAttribute("aria-selected", "true");
    await page.keyboard.press("ArrowRight");
    await expect(timeline).toBeFocused();
    await page.keyboard.press("ArrowLeft");
    await expect(last).toBeFocused();
    await page.keyboard.press("Home");
    await expect(timeline).toBeFocused();
    await expect(timeline).toHaveAttribute("aria-selected", "true");
    await expect(page).not.toHaveURL(/view=/);
  });
});
