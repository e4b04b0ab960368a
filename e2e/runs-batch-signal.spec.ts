import { expect, test } from "@playwright/test";
import { approvalRun, withApprovalWorker } from "./approval-runs";
import { snapBothThemes } from "./operator-fixtures";

/**
 * Batch signal from the runs list (issue 15 build item 3): runs of the demo's RefundApprovalWorkflow
 * wait for `approve`, worked by a real SDK worker on the embedded server. The dry run offers the
 * awaited name, warns per run before a mistyped `aprove`, and after sending the right one the
 * outcome is read from each run's history.
 */

const QUEUE = "e2e-batch-signal";
withApprovalWorker(QUEUE);

test("signals selected runs after a dry run that warns of a mistyped name, confirmed from history", async ({
  page,
}) => {
  const prefix = `bsig-${Date.now().toString(36)}`;
  await Promise.all([1, 2].map((n) => approvalRun(`${prefix}-${n}`, QUEUE)));
  await page.goto(`/runs?q=${prefix}`);
  await expect(page.getByTestId("runs-row")).toHaveCount(2);
  await page.getByTestId("runs-select-page").check();
  await page.getByTestId("runs-batch-signal").click();

  const batch = page.getByTestId("runs-batch");
  await expect(batch).toHaveAttribute("data-stage", "planned", { timeout: 20_000 });
  const offers = batch.getByTestId("runs-batch-signal-offers");
  await expect(offers).toContainText("approve (2)");
  const execute = page.getByTestId("runs-batch-execute");
  await expect(execute).toBeDisabled();

  // A mistyped name: each run is said not to wait for it, before anything is sent.
  await page.getByTestId("runs-batch-signal-name").fill("aprove");
  await expect(batch.locator('[data-bucket="unawaited"]')).toHaveAttribute("data-count", "2");
  const warning = batch.getByTestId("runs-batch-signal-warning");
  await expect(warning).toContainText("2 runs do not wait for “aprove”");
  await snapBothThemes(page, "runs-batch-signal-mistyped");

  // Bad arguments are refused with a clear error.
  await page.getByTestId("runs-batch-signal-args").fill("{approved");
  await expect(batch).toContainText("The arguments are not valid JSON.");
  await expect(execute).toBeDisabled();
  await page.getByTestId("runs-batch-signal-args").fill("[true]");

  await warning.getByRole("button", { name: "Use approve" }).click();
  await expect(page.getByTestId("runs-batch-signal-name")).toHaveValue("approve");
  await expect(batch.locator('[data-bucket="awaited"]')).toHaveAttribute("data-count", "2");
  await expect(batch.locator('[data-bucket="awaited"]')).toContainText("waits for approve");
  await expect(warning).toHaveCount(0);
  await snapBothThemes(page, "runs-batch-signal-planned");
  await expect(execute).toHaveText("Signal 2 runs");
  await execute.click();

  const outcome = page.getByTestId("runs-batch-outcome");
  await expect(outcome).toHaveAttribute("data-settled", "true", { timeout: 30_000 });
  await expect(outcome).toContainText("2 of 2 commands accepted.");
  await expect(page.getByTestId("runs-batch-signal-recorded")).toHaveText(
    "In history: 2 no longer wait for approve; 0 not seen yet.",
  );
  await snapBothThemes(page, "runs-batch-signal-outcome");
});
