import { mkdirSync } from "node:fs";
import { expect, test } from "@playwright/test";
import type { Page } from "@playwright/test";
import {
  CHAIN_ID,
  CHAIN_RUNS,
  SCENARIO_IDS,
  TASK_QUEUE,
  e2eContinueAsNew,
  e2eScenarios,
  startIdleWorkflow,
} from "./run-scenarios";
import {
  OPS_QUEUE,
  dwGet,
  dwPost,
  runStatus,
  startRun,
  stuckRestockRun,
  waitFor,
  withOpsWorker,
} from "./operator-fixtures";

const SCREENSHOTS = "test-results/screenshots";
// The brief's screenshots of the list at 1440×900, kept outside the test output so they survive a rerun.
const SHOTS = process.env.RUNS_SHOTS_DIR ?? "test-results/screenshots";
const dwHost = process.env.E2E_DW_HOST ?? "";

async function setTheme(page: Page, baseURL: string | undefined, theme: "light" | "dark") {
  await page.context().addCookies([{ name: "bw-theme", value: theme, url: baseURL ?? "" }]);
}

test.describe("runs list", () => {
  test.skip(!dwHost, "no Durable Workflow server for e2e");

  test.beforeAll(async () => {
    // The scenarios run real workers: a few hundred activities take longer than the default hook timeout.
    test.setTimeout(120_000);
    mkdirSync(SCREENSHOTS, { recursive: true });
    mkdirSync(SHOTS, { recursive: true });
    await e2eScenarios();
  });

  withOpsWorker();

  test("lists runs, filters to failed, and opens a run from the keyboard", async ({ page, baseURL }) => {
    await setTheme(page, baseURL, "light");
    // The scenario runs by their queue: by now other specs and the demo's schedules have started more
    // runs than one page holds, so the whole list's first page need not show them.
    await page.goto(`/runs?queue=${TASK_QUEUE}`);
    await expect(page.getByRole("heading", { level: 1, name: "Runs" })).toBeVisible();
    const table = page.getByTestId("runs-table");
    await expect(table).toBeVisible();
    await expect(table.getByText(SCENARIO_IDS.declined)).toBeVisible();
    await expect(table.getByText(SCENARIO_IDS.retried)).toBeVisible();
    for (const header of [
      "Workflow id",
      "Type",
      "Status",
      "Business key",
      "Task queue",
      "Started",
      "Closed",
      "Duration",
    ]) {
      await expect(table.getByRole("columnheader", { name: header })).toBeVisible();
    }
    await page.screenshot({ path: `${SCREENSHOTS}/runs-light.png`, fullPage: true });

    await page.getByRole("tab", { name: "Failed" }).click();
    await expect(page).toHaveURL(/[?&]status=failed(&|$)/);
    await expect(page.getByRole("tab", { name: "Failed" })).toHaveAttribute("aria-selected", "true");
    await expect(table.getByText(SCENARIO_IDS.retried)).toHaveCount(0);
    const rows = page.getByTestId("runs-row");
    await expect(rows.filter({ hasText: SCENARIO_IDS.declined })).toHaveCount(1);
    // The failed bucket holds failed, cancelled and terminated runs (other specs cancel runs on this server).
    for (const status of await rows.locator("td > span > [data-status]").allTextContents())
      expect(["failed", "cancelled", "terminated"]).toContain(status);
    // The failed tab says what ended each run: the type the run page shows, and the message.
    const failure = rows.filter({ hasText: SCENARIO_IDS.declined }).getByTestId("run-failure");
    await expect(failure).toContainText("PaymentDeclined");
    await expect(failure).toContainText("Card was declined by the issuer");
    // Each tab's count is the server's own total (operator_metrics), the failed bucket's being
    // failed + cancelled + terminated; with no filter the page reads them afresh.
    await page.goto("/runs");
    const metrics = await dwGet<{ operator_metrics: { runs: Record<string, number> } }>("/system/operator-metrics");
    const runs = metrics.operator_metrics.runs;
    const expected = {
      all: runs.total,
      running: runs.running,
      completed: runs.completed,
      failed: (runs.failed ?? 0) + (runs.cancelled ?? 0) + (runs.terminated ?? 0),
    };
    for (const [tab, count] of Object.entries(expected)) {
      const badge = page.getByTestId(`runs-tab-${tab}`).getByTestId("runs-tab-count");
      await expect(badge).toHaveAttribute("data-exact", "true");
      await expect(badge).toHaveAttribute("data-count", String(count));
    }
    // Under a search the namespace totals say nothing: only the tab on screen counts its own page.
    await page.goto(`/runs?status=failed&q=${encodeURIComponent(SCENARIO_IDS.declined)}`);
    await expect(page.getByTestId("runs-tab-failed").getByTestId("runs-tab-count")).toHaveAttribute("data-count", "1");
    await expect(page.getByTestId("runs-tab-all").getByTestId("runs-tab-count")).toHaveCount(0);
    await page.goto(`/runs?status=failed&queue=${TASK_QUEUE}`);

    // The state is the URL: a reload keeps the tab.
    await page.reload();
    await expect(page.getByRole("tab", { name: "Failed" })).toHaveAttribute("aria-selected", "true");
    // Keys pressed before hydration have no listener yet: wait for client-side queries to have run.
    await expect(page.getByTestId("connection-indicator")).not.toHaveAttribute("data-status", "checking", {
      timeout: 30_000,
    });

    const index = (await rows.allTextContents()).findIndex((text) => text.includes(SCENARIO_IDS.declined));
    for (let i = 0; i < index; i++) await page.keyboard.press("j");
    await expect(rows.nth(index)).toHaveAttribute("aria-selected", "true");
    await page.keyboard.press("Enter");
    await expect(page).toHaveURL(
      new RegExp(`/workflows/${encodeURIComponent(SCENARIO_IDS.declined).replace(/\./g, "\\.")}/runs/`),
    );
    await expect(page.getByTestId("run-workflow-id")).toHaveText(SCENARIO_IDS.declined);
  });

  test("searches by id, pages with a small page size, and shows new runs only when asked", async ({
    page,
    baseURL,
  }) => {
    await setTheme(page, baseURL, "dark");
    await page.goto("/runs?q=retried");
    await expect(page.getByTestId("runs-row")).toHaveCount(1);
    await expect(page.getByTestId("runs-row")).toContainText(SCENARIO_IDS.retried);

    await page.goto("/runs?size=25");
    await expect(page.getByTestId("runs-table")).toBeVisible();
    // The rows by id: their ages ("3 sec. ago") tick while the list waits.
    const before = await page.getByTestId("run-link").allTextContents();

    const idleId = `idle:${Date.now()}`;
    await startIdleWorkflow(idleId);
    const newRuns = page.getByTestId("runs-new");
    await expect(newRuns).toHaveText("+1 new", { timeout: 15_000 });
    // Rows never jump: the new run is held back until asked for.
    await expect(page.getByTestId("run-link")).toHaveText(before);
    await page.screenshot({ path: `${SCREENSHOTS}/runs-dark.png`, fullPage: true });
    await newRuns.click();
    await expect(page.getByTestId("runs-row").first()).toContainText(idleId);
    await expect(newRuns).toHaveCount(0);
  });

  test("finds a run by run id, a type typed in another case, a time range and a queue; a bad cursor says so", async ({
    page,
  }) => {
    await page.goto(`/runs?q=${encodeURIComponent(SCENARIO_IDS.retried)}`);
    const href = (await page.getByTestId("run-link").first().getAttribute("href")) ?? "";
    const runId = decodeURIComponent(href.split("/").at(-1) ?? "");
    expect(runId).toMatch(/^[0-9A-Z]{26}$/);

    // No workflow id or business key contains a run-id prefix: the console matches run ids instead.
    await page.goto(`/runs?q=${runId.slice(0, 14).toLowerCase()}`);
    await expect(page.getByTestId("runs-row")).toHaveCount(1);
    await expect(page.getByTestId("runs-row")).toContainText(SCENARIO_IDS.retried);
    await expect(page.locator('[data-note="run-id"]')).toBeVisible();

    // The server's type filter is exact: "checkoutworkflow" is read as CheckoutWorkflow, and said so.
    await page.goto("/runs?type=checkoutworkflow");
    await expect(page.locator('[data-note="types"]')).toContainText("CheckoutWorkflow");
    const types = page.getByTestId("runs-row").locator("td:nth-child(4)");
    await expect(types.first()).toHaveText("CheckoutWorkflow");
    for (const type of await types.allTextContents()) expect(type).toBe("CheckoutWorkflow");

    // A cursor the server cannot read is answered with page 1 there; here it is said, with the way back.
    await page.goto("/runs?cursor=not-a-page-token");
    const problem = page.getByTestId("runs-cursor-problem");
    await expect(problem).toHaveAttribute("data-problem", "ignored");
    await expect(page.getByTestId("runs-table")).toHaveCount(0);
    await page.getByTestId("runs-first-page").click();
    await expect(page).toHaveURL(/\/runs$/);
    await expect(page.getByTestId("runs-table")).toBeVisible();

    // Time range and queue are console-side walks with a stated reach, kept in the URL.
    await page.getByTestId("runs-range").selectOption("1h");
    await expect(page).toHaveURL(/\?range=1h$/);
    await expect(page.locator('[data-note="scanned"]')).toContainText("runs read here");
    await expect(page.getByTestId("runs-row").first()).toBeVisible();
    await page.goto(`/runs?queue=${TASK_QUEUE.toUpperCase()}`);
    const queues = page.getByTestId("runs-row").locator("td:nth-child(6)");
    await expect(queues.first()).toHaveText(TASK_QUEUE);
    for (const queue of await queues.allTextContents()) expect(queue).toBe(TASK_QUEUE);
    await expect(page.getByTestId("runs-row").filter({ hasText: SCENARIO_IDS.declined })).toHaveCount(1);
  });

  test("rows mark stuck, timed-out and continued runs, and every column fits at 1440×900", async ({
    page,
    baseURL,
  }) => {
    test.setTimeout(120_000);
    const stamp = Date.now();
    // Short ids: the list shows ids of more than 22 characters by their two ends.
    const stuckId = `stuck-${stamp.toString(36)}`;
    const timedOutId = `timeout-${stamp.toString(36)}`;
    await stuckRestockRun(stuckId);
    const started = await dwPost("/workflows", {
      workflow_type: "OpsRestockWorkflow",
      workflow_id: timedOutId,
      task_queue: OPS_QUEUE,
      input: ["sku-timeout"],
      execution_timeout_seconds: 1,
    });
    const timedOutRun = String(started.body.run_id);
    await waitFor("the run to time out", async () => (await runStatus(timedOutId, timedOutRun)) === "failed", 30_000);
    await e2eContinueAsNew();

    await page.setViewportSize({ width: 1440, height: 900 });
    for (const theme of ["light", "dark"] as const) {
      await setTheme(page, baseURL, theme);
      await page.goto("/runs");
      const rows = page.getByTestId("runs-row");
      const stuck = rows.filter({ hasText: stuckId }).getByTestId("run-attention");
      await expect(stuck).toHaveAttribute("data-stuck", "true");
      await expect(stuck).toContainText("Stuck · no progress for");
      await expect(stuck).toHaveAttribute("title", /^Stuck: repair needed · /);
      await expect(rows.filter({ hasText: timedOutId }).getByTestId("run-closed-reason")).toHaveText("Timed out");
      // Every column, Duration included, is inside the window: no horizontal cut.
      const duration = page.getByRole("columnheader", { name: "Duration" });
      await expect(duration).toBeVisible();
      const box = await duration.boundingBox();
      expect((box?.x ?? 0) + (box?.width ?? 0)).toBeLessThanOrEqual(1440);
      const overflow = await page
        .getByTestId("runs-table")
        .evaluate((table) => table.parentElement!.scrollWidth - table.parentElement!.clientWidth);
      expect(overflow).toBeLessThanOrEqual(0);
      await page.screenshot({ path: `${SHOTS}/runs-${theme}.png` });
    }

    await page.goto(`/runs?q=${encodeURIComponent(CHAIN_ID)}`);
    const chain = page.getByTestId("runs-row").getByTestId("run-chain");
    await expect(chain).toHaveCount(CHAIN_RUNS);
    // Newest first: run 3 completed, runs 2 and 1 continued as new.
    await expect(chain).toHaveText(["run 3 of 3", "run 2 of 3", "run 1 of 3"]);
    await expect(page.getByTestId("run-closed-reason")).toHaveText(["Continued as new", "Continued as new"]);
  });

  test("on a phone (390×844) every row's status is on screen without scrolling sideways", async ({ page }) => {
    // A long id and a long type, as in a real fleet: both columns at their widest. No worker serves
    // the queue, so the run stays listed as it is.
    const id = `phone-${Date.now().toString(36)}-shipment-batch-0042`;
    const started = await dwPost("/workflows", {
      workflow_type: "ShipmentReconciliationWorkflow",
      workflow_id: id,
      task_queue: "e2e-no-worker",
      input: [],
    });
    expect(started.status).toBeLessThan(300);
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`/runs?q=${id}`);
    // Measured where the page put them: nothing is scrolled into view (that would scroll the table sideways).
    const header = page.getByRole("columnheader", { name: "Status" });
    await expect(header).toBeAttached();
    const box = await header.boundingBox();
    expect((box?.x ?? Infinity) + (box?.width ?? 0)).toBeLessThanOrEqual(390);
    const badge = page.getByTestId("runs-row").first().locator("[data-status]").first();
    const badgeBox = await badge.boundingBox();
    expect((badgeBox?.x ?? Infinity) + (badgeBox?.width ?? 0)).toBeLessThanOrEqual(390);
    // Nothing scrolled sideways to get there: neither the page nor the table's scroll box.
    expect(await page.evaluate(() => window.scrollX)).toBe(0);
    expect(await page.getByTestId("runs-table").evaluate((table) => table.parentElement?.scrollLeft ?? 0)).toBe(0);
  });

  test("terminates selected runs after a dry run, and tracks them until they closed", async ({ page }) => {
    const prefix = `batch-${Date.now().toString(36)}`;
    const runIds = await Promise.all([1, 2].map((n) => startRun("OpsLongWaitWorkflow", `${prefix}-${n}`, [])));
    await page.goto(`/runs?q=${prefix}`);
    await expect(page.getByTestId("runs-row")).toHaveCount(2);
    await page.getByTestId("runs-select-page").check();
    await expect(page.getByTestId("runs-selection")).toContainText("2 runs selected");
    await page.getByTestId("runs-batch-terminate").click();

    // The dry run reads each run afresh; nothing is sent until the operator confirms with a reason.
    const batch = page.getByTestId("runs-batch");
    await expect(batch.locator('[data-bucket="send"]')).toHaveAttribute("data-count", "2");
    const execute = page.getByTestId("runs-batch-execute");
    await expect(execute).toBeDisabled();
    for (const [index, runId] of runIds.entries())
      expect(await runStatus(`${prefix}-${index + 1}`, runId)).not.toBe("terminated");
    await page.getByTestId("runs-batch-reason").fill("e2e batch terminate");
    await expect(execute).toHaveText("Terminate 2 runs");
    await execute.click();

    const outcome = page.getByTestId("runs-batch-outcome");
    await expect(outcome).toHaveAttribute("data-settled", "true", { timeout: 30_000 });
    await expect(outcome).toContainText("2 of 2 commands accepted.");
    await expect(page.getByTestId("runs-batch-closed")).toHaveText("Since then: closed 2 terminated; 0 still open.");
    for (const [index, runId] of runIds.entries())
      expect(await runStatus(`${prefix}-${index + 1}`, runId)).toBe("terminated");
  });

  test("after a batch terminate on the Running tab, the closed runs leave the list and the count agrees", async ({
    page,
  }) => {
    const prefix = `batchrun-${Date.now().toString(36)}`;
    await Promise.all([1, 2].map((n) => startRun("OpsLongWaitWorkflow", `${prefix}-${n}`, [])));
    await page.goto(`/runs?status=running&q=${prefix}`);
    const rows = page.getByTestId("runs-row");
    await expect(rows).toHaveCount(2);
    await expect(page.getByTestId("runs-count")).toHaveText("2 runs shown");
    await page.getByTestId("runs-select-page").check();
    await page.getByTestId("runs-batch-terminate").click();
    await expect(page.getByTestId("runs-batch").locator('[data-bucket="send"]')).toHaveAttribute("data-count", "2");
    await page.getByTestId("runs-batch-reason").fill("e2e batch terminate, running tab");
    await page.getByTestId("runs-batch-execute").click();
    await expect(page.getByTestId("runs-batch-outcome")).toHaveAttribute("data-settled", "true", { timeout: 30_000 });

    // The batch's end re-reads the list: the terminated runs no longer match "running".
    await expect(rows).toHaveCount(0);
    await expect(page.getByTestId("runs-count")).toHaveText("0 runs shown");
    await page.getByTestId("runs-batch").getByRole("button", { name: "Close" }).click();
    await expect(page.getByTestId("runs-selection")).toBeHidden();

    // On the All tab the same runs say what they are now.
    await page.getByRole("tab", { name: /^All/ }).click();
    await expect(rows).toHaveCount(2);
    await expect(rows.locator('[data-status="terminated"]')).toHaveCount(2);
  });

  test("a search the server refuses (422) says what to change, with no retry", async ({ page }) => {
    const tooLong = "x".repeat(300);
    // First render: the page's server read is refused.
    await page.goto(`/runs?q=${tooLong}`);
    const error = page.getByTestId("dw-error");
    await expect(error).toHaveAttribute("data-reason", "validation_failed");
    await expect(error).toContainText("The server did not accept this request");
    await expect(page.getByTestId("dw-error-fields")).toContainText("query:");
    await expect(error.getByRole("button", { name: "Try again" })).toHaveCount(0);

    // From a list on screen: the refused search replaces the rows instead of a "refresh failed" over them.
    await page.goto("/runs");
    await expect(page.getByTestId("runs-row").first()).toBeVisible();
    await page.getByRole("searchbox").fill(tooLong);
    await page.getByRole("searchbox").press("Enter");
    await expect(error).toHaveAttribute("data-reason", "validation_failed");
    await expect(page.getByTestId("runs-row")).toHaveCount(0);
    await expect(page.getByTestId("runs-refresh-failed")).toHaveCount(0);
    await expect(error.getByRole("button", { name: "Try again" })).toHaveCount(0);
  });

  test("an unknown namespace says what to do", async ({ page, baseURL }) => {
    await page.context().addCookies([{ name: "bw-namespace", value: "no-such-namespace", url: baseURL ?? "" }]);
    await page.goto("/runs");
    const error = page.getByTestId("dw-error");
    await expect(error).toBeVisible();
    await expect(error).toHaveAttribute("data-reason", "namespace_not_found");
    await expect(error).toContainText("Pick another namespace");
  });
});
