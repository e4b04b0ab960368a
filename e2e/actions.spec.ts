import { appendFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "@playwright/test";
import {
  dwPost,
  historyOf,
  liveness,
  runPath,
  runStatus,
  snapBothThemes,
  startConsole,
  startRun,
  stuckRestockRun,
  waitFor,
  withOpsWorker,
} from "./operator-fixtures";

/**
 * Run actions end to end: the guarded action handler, the server's answer, and the durable
 * confirmation read back from the run's history (embedded server, real SDK worker, Chromium).
 */

const unique = () => `${Date.now().toString(36)}${Math.floor(Math.random() * 1e4)}`;

withOpsWorker();

async function longWaitRun(workflowId: string): Promise<string> {
  const runId = await startRun("OpsLongWaitWorkflow", workflowId, []);
  await waitFor(
    `${workflowId} to park on its timer`,
    async () => (await liveness(workflowId, runId)) === "timer_scheduled",
  );
  return runId;
}

test("repairs a stuck run from its page, confirms the durable result, then shows the run completing", async ({
  page,
}) => {
  test.setTimeout(90_000);
  const workflowId = `ops-repair-${unique()}`;
  const runId = await stuckRestockRun(workflowId);

  await page.goto(runPath(workflowId, runId));
  const repair = page.getByTestId("run-actions").locator('button[data-action="repair"]');
  await expect(repair).toBeEnabled({ timeout: 20_000 });
  // The lost timer's due time is shown, and once it is past, how late it is (the header's clock ticks every 15 s).
  const due = page.getByTestId("run-wait-due");
  await expect(due).toHaveAttribute("data-overdue", "true", { timeout: 30_000 });
  await expect(due).toContainText(/^due .+ · overdue by \d/);
  // Closed-run actions explain themselves instead of vanishing.
  await expect(page.getByTestId("action-reasons")).toContainText("Only closed runs can be archived.");

  await repair.click();
  await expect(page.getByTestId("action-dialog")).toContainText("Repair this run");
  await page.getByTestId("action-submit").click();

  const status = page.getByTestId("action-status");
  await expect(status.locator('[data-state="accepted"]')).toContainText("repair_dispatched");
  const confirmation = page.getByTestId("confirmation");
  await expect(confirmation).toHaveAttribute("data-phase", "confirmed", { timeout: 30_000 });
  for (const step of ["command_recorded", "task_recreated", "left_repair_needed"]) {
    await expect(confirmation.locator(`[data-step="${step}"]`)).toHaveAttribute("data-status", "done");
  }
  await expect(confirmation.locator('[data-step="command_recorded"]')).toContainText(
    "RepairRequested recorded at history sequence",
  );
  const durableMs = Number(await confirmation.getAttribute("data-durable-ms"));
  expect(durableMs).toBeGreaterThan(0);

  // The repaired run goes on to finish: the follow-up shows it without a reload.
  await expect(page.getByTestId("run-follow-up")).toHaveAttribute("data-run-status", "completed", { timeout: 45_000 });
  expect(await runStatus(workflowId, runId)).toBe("completed");
  const events = await historyOf(workflowId, runId);
  const repaired = events.find((event) => event.event_type === "RepairRequested");
  expect(repaired?.payload.outcome).toBe("repair_dispatched");

  await snapBothThemes(page, "repair-confirmed");
  const dir = join(__dirname, "..", "test-results", "screenshots");
  mkdirSync(dir, { recursive: true });
  appendFileSync(
    join(dir, "repair-timing.jsonl"),
    `${JSON.stringify({ workflowId, clickToDurableMs: durableMs, at: new Date().toISOString() })}\n`,
  );
  console.log(`repair click → durable confirmation: ${durableMs} ms`);
});

test("cancel with a reason is confirmed and the reason is in the run's history", async ({ page }) => {
  const workflowId = `ops-cancel-${unique()}`;
  const runId = await longWaitRun(workflowId);
  await page.goto(runPath(workflowId, runId));
  const cancel = page.getByTestId("run-actions").locator('button[data-action="cancel"]');
  await expect(cancel).toBeEnabled({ timeout: 20_000 });
  // Terminate is the destructive one and is drawn so; Cancel is an ordinary action.
  const terminate = page.getByTestId("run-actions").locator('button[data-action="terminate"]');
  await expect(terminate).toHaveClass(/\bbg-bad\b/);
  await expect(cancel).not.toHaveClass(/\bbg-bad\b/);
  // Terminate sends nothing without a reason.
  await terminate.click();
  await expect(page.getByTestId("action-dialog")).toContainText("This is the destructive stop");
  await page.getByTestId("action-submit").click();
  await expect(page.getByTestId("action-dialog").getByRole("alert")).toContainText("Give a reason");
  await page.getByTestId("action-dialog").getByRole("button", { name: "Close" }).click();
  await cancel.click();
  await expect(page.getByTestId("action-dialog")).toContainText("the ordinary way to stop a run");
  await expect(page.getByTestId("action-submit")).not.toHaveClass(/\bbg-bad\b/);

  // A reason is required: the dialog says so instead of sending.
  await page.getByTestId("action-submit").click();
  await expect(page.getByTestId("action-dialog").getByRole("alert")).toContainText("Give a reason");
  await page.getByTestId("action-dialog").locator('textarea[name="reason"]').fill("e2e: customer asked to stop");
  await page.getByTestId("action-submit").click();

  const confirmation = page.getByTestId("confirmation");
  await expect(confirmation).toHaveAttribute("data-phase", "confirmed", { timeout: 20_000 });
  await expect(confirmation.locator('[data-step="run_closed"]')).toContainText("WorkflowCancelled");
  await expect(confirmation.locator('[data-step="status_final"]')).toContainText("cancelled");

  const events = await historyOf(workflowId, runId);
  const requested = events.find((event) => event.event_type === "CancelRequested");
  expect(requested?.payload.reason).toBe("e2e: customer asked to stop");

  // The closed run can now be archived, and started again with the same input.
  const archive = page.getByTestId("run-actions").locator('button[data-action="archive"]');
  await expect(archive).toBeEnabled({ timeout: 15_000 });
  await archive.click();
  await page.getByTestId("action-submit").click();
  await expect(page.getByTestId("confirmation")).toHaveAttribute("data-phase", "confirmed", { timeout: 20_000 });
  await expect(page.getByTestId("confirmation").locator('[data-step="run_archived"]')).toHaveAttribute(
    "data-status",
    "done",
  );
  // The header says so, from the server's describe.
  await expect(page.getByTestId("run-archived")).toBeVisible({ timeout: 15_000 });

  const again = page.getByTestId("run-actions").locator('button[data-action="startAgain"]');
  await expect(again).toBeEnabled();
  await again.click();
  const newId = await page.getByTestId("action-dialog").locator('input[name="newWorkflowId"]').inputValue();
  expect(newId.startsWith(`${workflowId}-again-`)).toBe(true);
  await page.getByTestId("action-submit").click();
  await expect(page.getByTestId("confirmation")).toHaveAttribute("data-phase", "confirmed", { timeout: 20_000 });
  await expect(page.getByRole("link", { name: `Open the new run of ${newId}` })).toBeVisible();
});

test("a 409 rejection is shown in words", async ({ page }) => {
  const workflowId = `ops-409-${unique()}`;
  const runId = await longWaitRun(workflowId);
  await page.goto(runPath(workflowId, runId));
  const terminate = page.getByTestId("run-actions").locator('button[data-action="terminate"]');
  await expect(terminate).toBeEnabled({ timeout: 20_000 });
  await terminate.click();
  await page.getByTestId("action-dialog").locator('textarea[name="reason"]').fill("e2e: stale page");

  // Someone else closes the run while the dialog is open; the server is the judge.
  const closed = await dwPost(`/workflows/${encodeURIComponent(workflowId)}/cancel`, { reason: "closed elsewhere" });
  expect(closed.status).toBe(200);
  await page.getByTestId("action-submit").click();

  const rejected = page.getByTestId("action-status").locator('[data-state="rejected"]');
  await expect(rejected).toContainText("HTTP 409");
  await expect(rejected).toContainText("the run is no longer active (it has closed).");
});

test("action handlers refuse cross-origin requests before touching the server", async ({ request, baseURL }) => {
  const workflowId = `ops-csrf-${unique()}`;
  const runId = await longWaitRun(workflowId);
  const body = { action: "cancel", workflowId, runId, requestId: `csrf-${unique()}`, reason: "forged" };

  const foreign = await request.post("/api/actions/runs", { headers: { Origin: "http://evil.example" }, data: body });
  expect(foreign.status()).toBe(403);
  expect(await foreign.json()).toMatchObject({ reason: "cross_origin" });

  const crossSite = await request.post("/api/actions/runs", {
    headers: { Origin: baseURL ?? "", "Sec-Fetch-Site": "cross-site" },
    data: body,
  });
  expect(crossSite.status()).toBe(403);

  const noOrigin = await request.post("/api/actions/system/repair-pass", { data: {} });
  expect(noOrigin.status()).toBe(403);
  expect(await noOrigin.json()).toMatchObject({ reason: "cross_origin" });

  expect((await historyOf(workflowId, runId)).some((event) => event.event_type === "CancelRequested")).toBe(false);
  expect(await runStatus(workflowId, runId)).not.toBe("cancelled");
});

test.describe("read-only mode", () => {
  test.setTimeout(120_000);

  test("disables every action with the reason and refuses direct POSTs server-side", async ({ page, request }) => {
    const readOnly = await startConsole({ BREAKWATER_READ_ONLY: "1" });
    try {
      const workflowId = `ops-readonly-${unique()}`;
      const runId = await stuckRestockRun(workflowId);
      await page.goto(`${readOnly.baseUrl}${runPath(workflowId, runId)}`);
      const actions = page.getByTestId("run-actions");
      await expect(page.getByTestId("action-reasons")).toContainText("read-only", { timeout: 20_000 });
      for (const action of ["repair", "cancel", "terminate", "signal", "archive", "startAgain"]) {
        await expect(actions.locator(`button[data-action="${action}"]`)).toBeDisabled();
      }

      const direct = await request.post(`${readOnly.baseUrl}/api/actions/runs`, {
        headers: { Origin: readOnly.baseUrl },
        data: { action: "repair", workflowId, runId, requestId: `ro-${unique()}` },
      });
      expect(direct.status()).toBe(403);
      expect(await direct.json()).toMatchObject({ reason: "read_only" });
      const pass = await request.post(`${readOnly.baseUrl}/api/actions/system/repair-pass`, {
        headers: { Origin: readOnly.baseUrl },
        data: {},
      });
      expect(pass.status()).toBe(403);

      await page.goto(`${readOnly.baseUrl}/system`);
      await expect(page.getByTestId("repair-pass")).toBeDisabled();
      await expect(page.getByTestId("system-repair")).toContainText("read-only");

      // Nothing reached the server: the run is still stuck, with no RepairRequested.
      expect(await liveness(workflowId, runId)).toBe("repair_needed");
      expect((await historyOf(workflowId, runId)).some((event) => event.event_type === "RepairRequested")).toBe(false);
      // Leave no stuck run behind for the inbox spec.
      expect((await dwPost(`/workflows/${encodeURIComponent(workflowId)}/repair`, {})).status).toBe(200);
    } finally {
      await readOnly.stop();
    }
  });
});
