import { expect, test } from "@playwright/test";
import {
  liveness,
  runPath,
  runStatus,
  snapBothThemes,
  startConsole,
  stuckRestockRun,
  waitFor,
  withOpsWorker,
} from "./operator-fixtures";

/** Overview (operator_metrics), System (repair candidates and pass) and Workers, as an admin and as a lesser role. */

withOpsWorker();

test("overview shows metric panels, sampled charts, a live region and an alert linking to the inbox", async ({
  page,
}) => {
  test.setTimeout(90_000);
  const workflowId = `ops-overview-${Date.now().toString(36)}`;
  const runId = await stuckRestockRun(workflowId);

  await page.goto("/");
  for (const panel of [
    "panel-runs",
    "panel-repair",
    "panel-tasks",
    "panel-activities",
    "panel-backlog",
    "panel-workers",
    "panel-offenders",
  ]) {
    await expect(page.getByTestId(panel)).toBeVisible({ timeout: 20_000 });
  }
  await expect(page.getByTestId("overview-live")).toHaveAttribute("aria-live", "polite");
  await expect(page.getByTestId("overview-live")).toContainText(/needs? repair/);
  const alert = page.locator('[data-alert="repair_needed"]');
  await expect(alert).toHaveAttribute("href", "/namespaces/default/attention");
  await expect(page.getByTestId("panel-repair")).toContainText("oldest stuck");
  // The navigation counts the runs waiting for a person; every count leads to the list behind it.
  await expect(page.getByTestId("nav-attention-count")).toHaveText(/^[1-9]\d*/);
  await expect(page.getByTestId("panel-repair").getByRole("link", { name: /^Repair needed: \d+$/ })).toHaveAttribute(
    "href",
    "/namespaces/default/attention",
  );
  const failed = page.getByTestId("panel-runs").getByRole("link", { name: /^Failed: \d+$/ });
  await expect(failed).toHaveAttribute("href", "/namespaces/default/runs?status=failed");
  // Worst offenders name the stuck run itself and link to it.
  await expect(page.getByTestId("offender").filter({ hasText: workflowId }).getByRole("link")).toHaveAttribute(
    "href",
    runPath(workflowId, runId),
    { timeout: 30_000 },
  );
  // The charts draw the console's own samples (docs/decisions/0027), not only this page's.
  await expect(page.getByTestId("panel-repair").locator("figcaption")).toContainText(
    "sampled by the console every 15 s since",
    { timeout: 20_000 },
  );
  // The drawings arrive in their own chunk (next/dynamic) after the captions: wait for the fourth.
  await expect(page.locator(".recharts-surface").nth(3)).toBeVisible({ timeout: 20_000 });
  await snapBothThemes(page, "overview");
  await failed.click();
  await expect(page).toHaveURL(/\/namespaces\/default\/runs\?status=failed$/);
  await expect(page.getByRole("tab", { name: "Failed" })).toHaveAttribute("aria-selected", "true");

  await page.goto("/system");
  await expect(page.getByTestId("repair-total")).not.toHaveText("0", { timeout: 20_000 });
  await snapBothThemes(page, "system");
  await page.getByTestId("repair-pass").click();
  // A fleet-wide pass is confirmed first, and the dialog says its report will name no runs.
  // The open one: the retention panel keeps a closed dialog of its own on the page.
  const confirm = page.locator("dialog[open]").and(page.getByTestId("confirm-pass-dialog"));
  // The pass is server-wide (decision in components/system/confirm-pass-dialog.tsx), and says so.
  await expect(confirm).toContainText("every namespace (not only default)");
  await expect(confirm).toContainText("names no runs");
  await snapBothThemes(page, "system-confirm-pass");
  await confirm.getByTestId("confirm-pass").click();
  const report = page.getByTestId("repair-report");
  await expect(report).toHaveAttribute("data-status", "200", { timeout: 20_000 });
  expect(Number(await page.getByTestId("repaired-missing").textContent())).toBeGreaterThanOrEqual(1);
  await snapBothThemes(page, "system-repair-pass");
  await waitFor("the pass to unstick the run", async () => (await liveness(workflowId, runId)) !== "repair_needed");
  await waitFor("the run to complete", async () => (await runStatus(workflowId, runId)) === "completed", 30_000);

  await page.goto("/workers");
  await expect(page.getByTestId("worker-row").first()).toBeVisible({ timeout: 20_000 });
  await expect(page.getByTestId("queues-table")).toContainText("e2e-ops");
  await snapBothThemes(page, "workers");
});

test("panels that need an admin token say so instead of failing", async ({ page }) => {
  test.setTimeout(120_000);
  // A worker token: the server answers 403 on /system/** (and on operator routes).
  const lesser = await startConsole({ DW_TOKEN: process.env.E2E_WORKER_TOKEN ?? "" });
  try {
    await page.goto(`${lesser.baseUrl}/`);
    await expect(page.getByTestId("panel-metrics").getByTestId("requires-admin")).toContainText(
      "requires an admin token",
      { timeout: 20_000 },
    );
    await expect(page.getByTestId("dw-error")).toHaveCount(0);
    await page.goto(`${lesser.baseUrl}/system`);
    await expect(page.getByTestId("system-repair").getByTestId("requires-admin")).toBeVisible({ timeout: 20_000 });
    await expect(page.getByTestId("system-timeouts").getByTestId("requires-admin")).toBeVisible();
  } finally {
    await lesser.stop();
  }
});
