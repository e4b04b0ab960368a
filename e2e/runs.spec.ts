import { mkdirSync } from "node:fs";
import { expect, test } from "@playwright/test";
import type { Page } from "@playwright/test";
import { SCENARIO_IDS, e2eScenarios, startIdleWorkflow } from "./run-scenarios";

const SCREENSHOTS = "test-results/screenshots";
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
    await e2eScenarios();
  });

  test("lists runs, filters to failed, and opens a run from the keyboard", async ({ page, baseURL }) => {
    await setTheme(page, baseURL, "light");
    await page.goto("/runs");
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
    await expect(page).toHaveURL(/\?status=failed$/);
    await expect(page.getByRole("tab", { name: "Failed" })).toHaveAttribute("aria-selected", "true");
    await expect(table.getByText(SCENARIO_IDS.retried)).toHaveCount(0);
    const rows = page.getByTestId("runs-row");
    await expect(rows.filter({ hasText: SCENARIO_IDS.declined })).toHaveCount(1);
    // The failed bucket holds failed, cancelled and terminated runs (other specs cancel runs on this server).
    for (const status of await rows.locator("[data-status]").allTextContents())
      expect(["failed", "cancelled", "terminated"]).toContain(status);

    // The state is the URL: a reload keeps the tab.
    await page.reload();
    await expect(page.getByRole("tab", { name: "Failed" })).toHaveAttribute("aria-selected", "true");

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
    const before = await page.getByTestId("runs-row").allTextContents();

    const idleId = `idle:${Date.now()}`;
    await startIdleWorkflow(idleId);
    const newRuns = page.getByTestId("runs-new");
    await expect(newRuns).toHaveText("+1 new", { timeout: 15_000 });
    // Rows never jump: the new run is held back until asked for.
    await expect(page.getByTestId("runs-row")).toHaveText(before);
    await page.screenshot({ path: `${SCREENSHOTS}/runs-dark.png`, fullPage: true });
    await newRuns.click();
    await expect(page.getByTestId("runs-row").first()).toContainText(idleId);
    await expect(newRuns).toHaveCount(0);
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
