import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "@playwright/test";
import type { Page } from "@playwright/test";
import { approvalRun, withApprovalWorker } from "./approval-runs";
import { dwPost, liveness, runPath, waitFor } from "./operator-fixtures";

/**
 * A mistyped signal (issue 15 item 4): the demo's RefundApprovalWorkflow (server/demo/workflows.ts)
 * waits for `approve`, worked by a real SDK worker on the embedded server. The dialog offers the
 * awaited name, warns before `aprove`, sends it only "anyway", and after the durable confirmation
 * says the run is still waiting for `approve`; the correct name then ends the wait.
 */

const QUEUE = "e2e-signals";
const SHOTS = join(__dirname, "..", "test-results", "screenshots");
mkdirSync(SHOTS, { recursive: true });
const unique = () => `${Date.now().toString(36)}${Math.floor(Math.random() * 1e4)}`;

withApprovalWorker(QUEUE);

/** Light and dark of the same screen, by the colour scheme the console follows by default. */
async function shoot(page: Page, name: string) {
  for (const scheme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.waitForFunction(
      (dark) => document.documentElement.classList.contains("dark") === dark,
      scheme === "dark",
    );
    await page.screenshot({ path: `${SHOTS}/detail-${name}-${scheme}.png`, fullPage: true });
  }
  await page.emulateMedia({ colorScheme: "light" });
}

test("a mistyped signal is warned about, sent only anyway, and the run is said to still wait", async ({ page }) => {
  test.setTimeout(90_000);
  const workflowId = `refund-approval-${unique()}`;
  const runId = await approvalRun(workflowId, QUEUE);
  await page.goto(runPath(workflowId, runId));

  const signal = page.getByTestId("run-actions").locator('button[data-action="signal"]');
  await expect(signal).toBeEnabled({ timeout: 20_000 });
  await signal.click();
  const dialog = page.getByTestId("action-dialog");
  await expect(dialog.getByTestId("awaited-signals")).toContainText("approve");

  await dialog.getByRole("textbox", { name: "Signal name" }).fill("aprove");
  const warning = dialog.getByTestId("signal-name-warning");
  await expect(warning).toContainText("not waiting for a signal named “aprove”");
  await expect(warning.getByRole("button", { name: "Use approve" })).toBeVisible();
  const submit = dialog.getByTestId("action-submit");
  await expect(submit).toHaveText("Send ‘aprove’ anyway");
  await shoot(page, "signal-dialog");

  await submit.click();
  const confirmation = page.getByTestId("confirmation");
  await expect(confirmation).toHaveAttribute("data-phase", "confirmed", { timeout: 30_000 });
  const recorded = confirmation.locator('[data-step="command_recorded"]');
  await expect(recorded).toContainText(/SignalReceived recorded at history sequence \d+\.$/);
  await expect(recorded).not.toContainText("()");
  const followUp = page.getByTestId("signal-follow-up");
  await expect(followUp).toHaveAttribute("data-follow-up", "still_waiting", { timeout: 20_000 });
  await expect(followUp).toHaveText("The run is still waiting for approve.");
  await shoot(page, "signal-confirmed");

  // The awaited name, picked from the dialog's choices, ends the wait.
  await signal.click();
  await dialog.getByTestId("awaited-signals").getByRole("button", { name: "approve" }).click();
  await expect(dialog.getByRole("textbox", { name: "Signal name" })).toHaveValue("approve");
  await expect(dialog.getByTestId("signal-name-warning")).toHaveCount(0);
  await expect(submit).toHaveText("Send signal");
  await dialog.getByRole("textbox", { name: "Arguments (JSON array)" }).fill("[true]");
  await submit.click();
  await expect(confirmation).toHaveAttribute("data-phase", "confirmed", { timeout: 30_000 });
  await expect(followUp).toHaveAttribute("data-follow-up", "not_waiting", { timeout: 20_000 });
});

test("run detail of a signalled run: history subjects and fields, timeline lanes, in both themes", async ({ page }) => {
  test.setTimeout(90_000);
  const workflowId = `refund-approval-${unique()}`;
  const runId = await approvalRun(workflowId, QUEUE);
  const sent = await dwPost(`/workflows/${encodeURIComponent(workflowId)}/signal/approve`, { input: [true] });
  expect(sent.status).toBeLessThan(300);
  await waitFor(`${workflowId} to complete`, async () => (await liveness(workflowId, runId)) !== "waiting_for_signal");

  await page.goto(`${runPath(workflowId, runId)}?view=history`);
  const history = page.getByTestId("history");
  const list = history.getByTestId("history-list");
  const opened = list.locator("button", { hasText: "SignalWaitOpened" });
  await expect(opened.getByTestId("history-subject")).toHaveText("approve", { timeout: 20_000 });
  await expect(list.locator("button", { hasText: "ActivityScheduled" }).getByTestId("history-subject")).toHaveText(
    "IssueRefund",
  );
  // ↓ / j step one event at a time from the selection.
  await opened.click();
  const selected = list.locator('[aria-pressed="true"]');
  const first = Number(await selected.getAttribute("data-sequence"));
  await page.keyboard.press("ArrowDown");
  await expect(selected).toHaveAttribute("data-sequence", String(first + 1));
  await page.keyboard.press("k");
  await expect(selected).toHaveAttribute("data-sequence", String(first));
  await expect(page.getByTestId("history-fields")).toContainText("signal_name");
  await shoot(page, "history");

  await page.goto(`${runPath(workflowId, runId)}?view=activities`);
  await expect(page.getByTestId("ledger-activity")).toContainText("IssueRefund", { timeout: 20_000 });
  await expect(page.getByRole("columnheader", { name: "Failure" })).toBeVisible();
  await shoot(page, "ledger");

  await page.goto(`${runPath(workflowId, runId)}?view=timeline`);
  await expect(page.getByTestId("timeline-chart")).toBeVisible({ timeout: 20_000 });
  await expect(page.getByTestId("timeline-chart")).not.toContainText("timer timer");
  await shoot(page, "timeline");
});
