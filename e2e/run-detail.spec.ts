import { mkdirSync } from "node:fs";
import { expect, test } from "@playwright/test";
import type { Page } from "@playwright/test";
import { BULK_ACTIVITIES, SCENARIO_IDS, e2eScenarios } from "./run-scenarios";

const SCREENSHOTS = "test-results/screenshots";
const dwHost = process.env.E2E_DW_HOST ?? "";

const runPath = (workflowId: string, runId: string) => `/workflows/${encodeURIComponent(workflowId)}/runs/${encodeURIComponent(runId)}`;

async function setTheme(page: Page, baseURL: string | undefined, theme: "light" | "dark") {
  await page.context().addCookies([{ name: "bw-theme", value: theme, url: baseURL ?? "" }]);
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

    // Full details (the export bundle) replace the debug preview; a row expands to its details as text.
    await expect(page.getByTestId("exceptions")).not.toContainText("full details load with the export bundle");
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

    const activity = page.getByTestId("activity").filter({ hasText: "ReserveStock" });
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
    await expect(chart.getByTestId("timeline-bar").filter({ hasText: "#3" })).toHaveCount(1);
    await page.screenshot({ path: `${SCREENSHOTS}/run-timeline-light.png`, fullPage: true });

    await page.getByRole("button", { name: "Event list" }).click();
    await expect(page.getByTestId("timeline-list")).toContainText("Scheduled retry 2 for ReserveStock.");

    await setTheme(page, baseURL, "dark");
    await page.goto(`${runPath(SCENARIO_IDS.retried, runs.retried)}?view=history`);
    const history = page.getByTestId("history");
    await expect(history.getByTestId("history-count")).toContainText("of 10 events");
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

  test("a long history stays virtualized: a few dozen rows in the DOM, every event reachable", async ({ page }) => {
    const runs = await e2eScenarios();
    // Header and exceptions come from describe + debug in the first HTML, not from the history.
    const started = Date.now();
    await page.goto(runPath(SCENARIO_IDS.bulk, runs.bulk), { waitUntil: "commit" });
    await expect(page.getByTestId("run-header")).toBeVisible();
    await expect(page.getByTestId("exceptions")).toBeVisible();
    const headerMs = Date.now() - started;
    test.info().annotations.push({ type: "header-and-exceptions-visible-ms", description: String(headerMs) });
    console.log(`run detail of a ${3 * BULK_ACTIVITIES}+ event run: header and exceptions visible after ${headerMs} ms`);

    await page.goto(`${runPath(SCENARIO_IDS.bulk, runs.bulk)}?view=history`);
    const history = page.getByTestId("history");
    const total = 3 * BULK_ACTIVITIES;
    await expect(history.getByTestId("history-count")).toHaveText(new RegExp(`^([\\d,]+) of \\1 events$`), { timeout: 20_000 });
    const count = Number((await history.getByTestId("history-count").textContent())?.split(" ")[0].replace(/,/g, ""));
    expect(count).toBeGreaterThan(total);
    const list = history.getByTestId("history-list");
    const domRows = await list.getByRole("listitem").count();
    console.log(`history of ${count} events: ${domRows} rows in the DOM`);
    expect(domRows).toBeLessThanOrEqual(150);
    await list.evaluate((element) => element.scrollTo({ top: element.scrollHeight }));
    await expect(list).toContainText("WorkflowCompleted");
    expect(await list.getByRole("listitem").count()).toBeLessThanOrEqual(150);
    // The activity ledger and the timeline cope with hundreds of executions.
    await page.getByRole("tab", { name: "Activities" }).click();
    await expect(page.getByTestId("activity")).toHaveCount(BULK_ACTIVITIES);
  });

  test("the workflow route opens the current run, and the export downloads unchanged", async ({ page, request }) => {
    const runs = await e2eScenarios();
    await page.goto(`/workflows/${encodeURIComponent(SCENARIO_IDS.retried)}`);
    await expect(page.getByTestId("run-id")).toHaveText(runs.retried);
    await expect(page.getByTestId("run-output")).toContainText('"reserved": true');

    const href = await page.getByTestId("download-export").getAttribute("href");
    expect(href).toBe(`${runPath(SCENARIO_IDS.retried, runs.retried)}/export`);
    const response = await request.get(href ?? "");
    expect(response.status()).toBe(200);
    expect(response.headers()["content-disposition"]).toMatch(/^attachment; filename="history-export-/);
    const bundle = (await response.json()) as { schema: string; workflow: { instance_id: string }; integrity: { checksum: string } };
    expect(bundle.schema).toBe("durable-workflow.v2.history-export");
    expect(bundle.workflow.instance_id).toBe(SCENARIO_IDS.retried);
    expect(bundle.integrity.checksum).toMatch(/^[0-9a-f]{64}$/);
  });

  test("an unknown workflow says so, and ids render as text", async ({ page }) => {
    // Literal, valid-looking escapes in the id: decoding it twice would turn `%2F` into `/`.
    const hostile = "<img src=x onerror=alert(1)>/a%2Fb%41 ✓";
    await page.goto(`/workflows/${encodeURIComponent(hostile)}`);
    const error = page.getByTestId("dw-error");
    await expect(error).toBeVisible();
    await expect(error).toHaveAttribute("data-reason", /instance_not_found|run_not_found|route_not_found|not_found/);
    await expect(page.getByRole("heading", { level: 1 })).toContainText(hostile);
    await expect(page.locator("img[src=x]")).toHaveCount(0);
  });
});
