import { expect, test } from "@playwright/test";
import { historyOf, runStatus, snapBothThemes, stuckRestockRun, withOpsWorker } from "./operator-fixtures";

/**
 * The attention inbox: stuck runs grouped, a dry-run plan for "repair all in group", the repairs
 * with progress, and what the repaired runs did afterwards.
 */

withOpsWorker();

test("bulk repair of a group shows the plan, the progress and the outcome", async ({ page }) => {
  test.setTimeout(120_000);
  const suffix = Date.now().toString(36);
  const runs: { workflowId: string; runId: string }[] = [];
  for (const n of [1, 2, 3]) {
    const workflowId = `ops-inbox-${suffix}-${n}`;
    runs.push({ workflowId, runId: await stuckRestockRun(workflowId) });
  }

  await page.goto("/attention");
  const group = page.locator('[data-testid="attention-group"][data-cause="repair_needed"]', {
    hasText: "OpsRestockWorkflow",
  });
  await expect(group).toBeVisible({ timeout: 30_000 });
  const count = Number(await group.getAttribute("data-count"));
  expect(count).toBeGreaterThanOrEqual(3);
  await expect(group.getByTestId("sample-run").filter({ hasText: "ops-inbox-" }).first()).toHaveAttribute(
    "href",
    /^\/namespaces\/default\/workflows\/ops-inbox-/,
  );
  await expect(group).toContainText("Timer");
  // No server jargon: what the operator can do about runs the scan has not seen yet.
  await expect(page.getByTestId("scan-partial")).toHaveText(
    "A run that gets stuck after this scan shows up on the next one; press Scan again to look now.",
  );
  // The navigation's badge and the page count the same runs, from the same read (issue 37).
  const serverCount = page.getByTestId("attention-server-count");
  await expect(serverCount).toHaveAttribute("data-count", /^[1-9]\d*$/);
  const counted = await serverCount.getAttribute("data-count");
  await expect(page.getByTestId("nav-attention-count")).toHaveText(new RegExp(`^${counted}\\b`));
  await expect(serverCount).toContainText(`The server counts ${counted} runs that need an operator`);
  expect(Number(await serverCount.getAttribute("data-found"))).toBeGreaterThanOrEqual(3);
  await snapBothThemes(page, "attention-inbox");

  // Slow each repair a little so the progress stage is visible to the test as it is to a person.
  await page.route("**/api/actions/runs", async (route) => {
    await new Promise((resolve) => setTimeout(resolve, 400));
    await route.continue();
  });

  await group.getByTestId("bulk-open").click();
  const bulk = page.getByTestId("bulk-repair");
  const plan = bulk.getByTestId("bulk-plan");
  await expect(plan.locator('[data-bucket="repair"]')).toHaveAttribute("data-count", String(count), {
    timeout: 20_000,
  });
  await expect(plan).toContainText("will be repaired");
  await expect(plan.locator('[data-bucket="repair"] a').first()).toBeVisible();
  await snapBothThemes(page, "attention-bulk-plan");

  await bulk.getByTestId("bulk-execute").click();
  await expect(bulk.getByTestId("bulk-progress")).toContainText("Repairing:");
  const outcome = bulk.getByTestId("bulk-outcome");
  await expect(outcome).toContainText(`${count} of ${count} repairs accepted`, { timeout: 30_000 });
  await expect(outcome).toHaveAttribute("data-settled", "true", { timeout: 60_000 });
  await expect(outcome).toHaveAttribute("data-completed", String(count));
  await expect(outcome).toContainText(`${count} completed, 0 failed again`);
  await snapBothThemes(page, "attention-bulk-outcome");

  for (const run of runs) {
    expect(await runStatus(run.workflowId, run.runId)).toBe("completed");
    expect(
      (await historyOf(run.workflowId, run.runId)).filter((event) => event.event_type === "RepairRequested"),
    ).toHaveLength(1);
  }
});
