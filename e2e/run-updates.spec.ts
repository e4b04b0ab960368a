import { mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "@playwright/test";
import type { Page } from "@playwright/test";
import { DELIVERY_HOLD, defaultQueueActivities, deliveryHoldWorkflow } from "../server/demo/workflows";
import { withSdkWorker } from "./approval-runs";
import {
  dwPost,
  historyOf,
  liveness,
  PASSWORDS,
  runPath,
  runStatus,
  SESSION_SECRET,
  startConsole,
  waitFor,
  writeUsersFile,
} from "./operator-fixtures";
import type { ExtraConsole } from "./operator-fixtures";

/**
 * Updates on the run page (issue 41): the demo fleet's DeliveryHoldWorkflow (server/demo/workflows.ts)
 * worked by the TypeScript SDK on the embedded server. Sent from the Updates tab in Chromium through
 * the guarded `/api/actions/updates` route: one that completes, one whose handler fails for good (its
 * badge in the tab and in the exceptions table), one to a closed run and one the run does not declare
 * (both refused, no handler ran); each read back from the run's durable history by its update id.
 * A viewer, and a read-only console, see the form disabled with the reason.
 */

const QUEUE = "e2e-updates";
const SHOTS = process.env.E2E_SHOTS_DIR ?? join(__dirname, "..", "test-results", "screenshots");
mkdirSync(SHOTS, { recursive: true });
const unique = () => `${Date.now().toString(36)}${Math.floor(Math.random() * 1e4)}`;
const token = process.env.E2E_TOKEN ?? "bw-secret-token-canary";

withSdkWorker(QUEUE, [deliveryHoldWorkflow], defaultQueueActivities);
test.describe.configure({ mode: "serial" });

let holdId: string;
let holdRunId: string;

async function startHold(workflowId: string): Promise<string> {
  const { status, body } = await dwPost("/workflows", {
    workflow_type: DELIVERY_HOLD.type,
    workflow_id: workflowId,
    task_queue: QUEUE,
    input: [`parcel-${workflowId}`, "12 Harbour Road, Lisbon"],
    duplicate_policy: "fail",
  });
  if (status >= 300 || typeof body.run_id !== "string") throw new Error(`start ${workflowId}: HTTP ${status}`);
  const runId = body.run_id;
  await waitFor(`${workflowId} to wait`, async () => (await liveness(workflowId, runId)) === "waiting_for_signal");
  return runId;
}

test.beforeAll(async () => {
  holdId = `hold-u-${unique()}`;
  holdRunId = await startHold(holdId);
});

async function openUpdates(page: Page, base: string, workflowId: string, runId: string): Promise<void> {
  await page.goto(`${base}${runPath(workflowId, runId)}?view=updates`);
  await expect(page.getByTestId("updates-tab")).toBeVisible({ timeout: 20_000 });
}

/** Sends one update from the form and returns the outcome box once history confirmed it. */
async function sendUpdate(page: Page, name: string, args: string) {
  await page.getByTestId("update-name").fill(name);
  await page.getByTestId("update-args").fill(args);
  await page.getByTestId("update-send").click();
  const outcome = page.getByTestId("update-outcome");
  await expect(outcome.getByTestId("update-confirm")).toHaveAttribute("data-phase", "confirmed", { timeout: 40_000 });
  return outcome;
}

function row(page: Page, name: string) {
  return page.getByTestId("update-row").filter({ has: page.getByTestId("update-row-name").getByText(name) });
}

/** The tab light and dark, wide and narrow, for a person to look at. */
async function shoot(page: Page, name: string) {
  for (const [label, size] of [
    ["1440", { width: 1440, height: 900 }],
    ["390", { width: 390, height: 844 }],
  ] as const) {
    await page.setViewportSize(size);
    for (const scheme of ["light", "dark"] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.waitForFunction(
        (dark) => document.documentElement.classList.contains("dark") === dark,
        scheme === "dark",
      );
      await page.getByTestId("updates-tab").scrollIntoViewIfNeeded();
      await page.screenshot({ path: join(SHOTS, `updates-${name}-${label}-${scheme}.png`) });
    }
  }
  await page.emulateMedia({ colorScheme: "light" });
  await page.setViewportSize({ width: 1440, height: 900 });
}

test("an update that completes: sent, answered, confirmed in history by its id, listed with its result", async ({
  page,
  baseURL,
}) => {
  await openUpdates(page, baseURL ?? "", holdId, holdRunId);
  // The worker's contract reached WorkflowStarted: its update names are offered.
  await expect(page.getByTestId("update-offer")).toHaveText([DELIVERY_HOLD.applyVoucher, DELIVERY_HOLD.changeAddress]);
  await expect(page.getByText("No update has been sent to this run.")).toBeVisible({ timeout: 20_000 });
  // Arguments are checked before anything is sent.
  await page.getByTestId("update-offer").filter({ hasText: DELIVERY_HOLD.changeAddress }).click();
  await page.getByTestId("update-args").fill("{not json");
  await page.getByTestId("update-send").click();
  await expect(page.getByTestId("update-problem")).toContainText("Not JSON");
  await expect(page.getByTestId("update-outcome")).toHaveCount(0);

  const outcome = await sendUpdate(page, DELIVERY_HOLD.changeAddress, '["7 Quay Street, Porto"]');
  await expect(outcome).toHaveAttribute("data-kind", "completed");
  await expect(outcome).toContainText("Completed: the handler of changeAddress returned.");
  await expect(outcome.getByTestId("update-confirm")).toContainText("UpdateCompleted");

  const completed = row(page, DELIVERY_HOLD.changeAddress);
  await expect(completed).toHaveAttribute("data-state", "completed", { timeout: 20_000 });
  await expect(completed.getByTestId("update-arguments")).toContainText("7 Quay Street, Porto");
  await expect(completed.getByTestId("update-result")).toContainText(/"addressChanges": ?1/);
  await expect(completed.getByTestId("update-sender")).toContainText("control_plane");
  // The update id the tab shows is the one history recorded.
  const recorded = (await historyOf(holdId, holdRunId)).find((event) => event.event_type === "UpdateCompleted");
  await expect(completed).toHaveAttribute("data-update-id", String(recorded?.payload.update_id));
  await shoot(page, "completed");
});

test("a handler that fails for good: failed with its Category and the non-retryable badge, here and in the exceptions table", async ({
  page,
  baseURL,
}) => {
  await openUpdates(page, baseURL ?? "", holdId, holdRunId);
  const outcome = await sendUpdate(page, DELIVERY_HOLD.applyVoucher, '["WINTER25"]');
  await expect(outcome).toHaveAttribute("data-kind", "failed");
  await expect(outcome).toContainText("Failed: the handler of applyVoucher threw (HTTP 422).");
  await expect(outcome).toContainText("voucher WINTER25 expired");

  const failed = row(page, DELIVERY_HOLD.applyVoucher);
  await expect(failed).toHaveAttribute("data-state", "failed", { timeout: 20_000 });
  await expect(failed.getByTestId("non-retryable-badge")).toHaveText("non-retryable");
  await expect(failed.getByTestId("update-failure-category")).toHaveText("application");
  await expect(failed.getByTestId("update-failure")).toContainText("VoucherExpired");
  // A failure, not a refusal: the handler ran.
  await expect(failed.getByTestId("update-rejection")).toHaveCount(0);

  const exceptions = page.getByTestId("exceptions-table");
  const exception = exceptions.getByRole("row").filter({ has: page.getByTestId("exception-update") });
  await expect(exception.getByTestId("exception-update")).toHaveText("Update applyVoucher", { timeout: 20_000 });
  await expect(exception.getByTestId("exception-category")).toContainText("application");
  await expect(exception.getByTestId("non-retryable-badge")).toBeVisible();
  await shoot(page, "failed");
});

test("an update the run does not declare, and one to a closed run, are refusals: no handler ran", async ({
  page,
  baseURL,
}) => {
  await openUpdates(page, baseURL ?? "", holdId, holdRunId);
  const unknown = await sendUpdate(page, "discount", "[10]");
  await expect(unknown).toHaveAttribute("data-kind", "unknown_update");
  await expect(unknown).toContainText("Refused (404 unknown_update): the run declares no update named discount.");
  const refused = row(page, "discount");
  await expect(refused).toHaveAttribute("data-state", "rejected", { timeout: 20_000 });
  await expect(refused.getByTestId("update-rejection")).toHaveText(
    "Refused before any handler ran (unknown_update): the run declares no update by this name.",
  );
  await expect(refused.getByTestId("non-retryable-badge")).toHaveCount(0);

  // A closed run: the form says why it is disabled; an SDK client's update is refused and recorded.
  const closedId = `hold-u-closed-${unique()}`;
  const closedRunId = await startHold(closedId);
  const terminated = await dwPost(`/workflows/${closedId}/terminate`, { reason: "e2e: closed run" });
  expect(terminated.status).toBeLessThan(300);
  await waitFor(`${closedId} to close`, async () => (await runStatus(closedId, closedRunId)) === "terminated");
  const sent = await dwPost(`/workflows/${closedId}/runs/${closedRunId}/update/${DELIVERY_HOLD.changeAddress}`, {
    input: ["1 Late Lane"],
    request_id: `e2e-closed-${unique()}`,
  });
  expect(sent.status).toBe(409);
  expect(sent.body.rejection_reason).toBe("run_not_active");
  await openUpdates(page, baseURL ?? "", closedId, closedRunId);
  await expect(page.getByTestId("update-disabled-reason")).toContainText("The run is closed.");
  await expect(page.getByTestId("update-send")).toBeDisabled();
  const late = row(page, DELIVERY_HOLD.changeAddress);
  await expect(late).toHaveAttribute("data-state", "rejected", { timeout: 20_000 });
  await expect(late).toHaveAttribute("data-update-id", String(sent.body.update_id));
  await expect(late.getByTestId("update-rejection")).toHaveText(
    "Refused before any handler ran (run_not_active): the run had already closed.",
  );
  await expect(late.getByTestId("update-arguments")).toContainText("1 Late Lane");
  await shoot(page, "closed");
});

test.describe("a viewer, and a read-only console", () => {
  let app: ExtraConsole;

  test.beforeAll(async () => {
    test.setTimeout(120_000);
    app = await startConsole({
      DW_TOKEN: token,
      BREAKWATER_READ_ONLY: "1",
      BREAKWATER_AUTH: "password",
      BREAKWATER_USERS_FILE: writeUsersFile(mkdtempSync(join(tmpdir(), "bw-updates-"))),
      BREAKWATER_SESSION_SECRET: SESSION_SECRET,
    });
  });

  test.afterAll(async () => {
    await app?.stop();
  });

  test("see the updates and the form disabled with the reason", async ({ page }) => {
    await page.goto(`${app.baseUrl}${runPath(holdId, holdRunId)}?view=updates`);
    await expect(page).toHaveURL(/\/login(\?|$)/);
    await page.getByLabel("User name").fill("vic");
    await page.getByLabel("Password").fill(PASSWORDS.vic);
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page.getByTestId("updates-tab")).toBeVisible({ timeout: 20_000 });
    await expect(page.getByTestId("update-disabled-reason")).toContainText("The console is in read-only mode.");
    await expect(page.getByTestId("update-send")).toBeDisabled();
    await expect(row(page, DELIVERY_HOLD.applyVoucher)).toHaveAttribute("data-state", "failed", { timeout: 20_000 });
  });
});
