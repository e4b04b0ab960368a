import { mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "@playwright/test";
import type { Page } from "@playwright/test";
import { defaultQueueActivities, orderWorkflow, refundApprovalWorkflow } from "../server/demo/workflows";
import { withSdkWorker } from "./approval-runs";
import {
  dwPost,
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
 * Queries on the run page (issue 41): the demo fleet's OrderWorkflow and RefundApprovalWorkflow
 * (server/demo/workflows.ts) worked by the TypeScript SDK's query poller on the embedded server.
 * Sent from the Queries tab in Chromium through the console's read proxy: a declared query and its
 * decoded answer, a handler that fails with its message, an unknown name, and a viewer of a
 * read-only console querying (a query reads; it changes nothing).
 */

const QUEUE = "e2e-queries";
const SHOTS = process.env.E2E_SHOTS_DIR ?? join(__dirname, "..", "test-results", "screenshots");
mkdirSync(SHOTS, { recursive: true });
const unique = () => `${Date.now().toString(36)}${Math.floor(Math.random() * 1e4)}`;
const token = process.env.E2E_TOKEN ?? "bw-secret-token-canary";

withSdkWorker(QUEUE, [orderWorkflow, refundApprovalWorkflow], defaultQueueActivities);
test.describe.configure({ mode: "serial" });

let orderId: string;
let orderRunId: string;

async function start(workflowType: string, workflowId: string, input: unknown[]): Promise<string> {
  const { status, body } = await dwPost("/workflows", {
    workflow_type: workflowType,
    workflow_id: workflowId,
    task_queue: QUEUE,
    input,
    duplicate_policy: "fail",
  });
  if (status >= 300 || typeof body.run_id !== "string") throw new Error(`start ${workflowId}: HTTP ${status}`);
  return body.run_id;
}

test.beforeAll(async () => {
  orderId = `order-q-${unique()}`;
  orderRunId = await start("OrderWorkflow", orderId, [
    { orderId, customer: "ada", amountCents: 4200, scenario: "happy" },
  ]);
  await waitFor(`${orderId} to complete`, async () => (await runStatus(orderId, orderRunId)) === "completed");
});

async function openQueries(page: Page, base: string, workflowId: string, runId: string): Promise<void> {
  await page.goto(`${base}${runPath(workflowId, runId)}?view=queries`);
  await expect(page.getByTestId("queries-tab")).toBeVisible({ timeout: 20_000 });
}

async function ask(page: Page, name: string, args = "") {
  const before = await page.getByTestId("query-answer").count();
  await page.getByTestId("query-name").fill(name);
  await page.getByTestId("query-args").fill(args);
  await page.getByTestId("query-send").click();
  await expect(page.getByTestId("query-answer")).toHaveCount(before + 1, { timeout: 40_000 });
  return page.getByTestId("query-answer").first();
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
      await page.getByTestId("queries-tab").scrollIntoViewIfNeeded();
      await page.screenshot({ path: join(SHOTS, `queries-${name}-${label}-${scheme}.png`) });
    }
  }
  await page.emulateMedia({ colorScheme: "light" });
  await page.setViewportSize({ width: 1440, height: 900 });
}

test("a declared query is answered with the order's state and when it was answered", async ({ page, baseURL }) => {
  await openQueries(page, baseURL ?? "", orderId, orderRunId);
  // The worker's registered contract reached WorkflowStarted: its names are offered.
  await expect(page.getByTestId("query-offer")).toHaveText(["ledger", "progress", "status"]);
  await page.getByTestId("query-offer").filter({ hasText: "status" }).click();
  await expect(page.getByTestId("query-name")).toHaveValue("status");
  await page.getByTestId("query-send").click();
  const status = page.getByTestId("query-answer").first();
  await expect(status).toHaveAttribute("data-outcome", "answered", { timeout: 40_000 });
  await expect(status.getByTestId("query-result")).toContainText('"stage": "fulfilled"');
  await expect(status.getByTestId("query-result")).toContainText(`"orderId": "${orderId}"`);
  await expect(status.getByTestId("query-answered-at")).toContainText(/Answered at .*\d{2}:\d{2}:\d{2}/);

  const progress = await ask(page, "progress");
  await expect(progress.getByTestId("query-result")).toContainText('"done": 5');

  // Arguments are checked before anything is sent.
  await page.getByTestId("query-args").fill("{not json");
  await page.getByTestId("query-send").click();
  await expect(page.getByTestId("query-problem")).toContainText("Not JSON");
  await expect(page.getByTestId("query-answer")).toHaveCount(2);
  await page.getByTestId("query-args").fill("");
  await shoot(page, "answered");
});

test("a failing handler and an unknown name are refused in words", async ({ page, baseURL }) => {
  await openQueries(page, baseURL ?? "", orderId, orderRunId);
  const failed = await ask(page, "ledger");
  await expect(failed).toHaveAttribute("data-outcome", "handler_failed");
  await expect(failed).toContainText("The query handler failed on the worker.");
  await expect(failed).toContainText("The worker said: charge ledger is not loaded");

  const unknown = await ask(page, "nope");
  await expect(unknown).toHaveAttribute("data-outcome", "unknown_query");
  await expect(unknown).toContainText("The worker has no query handler by this name.");
  await shoot(page, "refused");
});

test.describe("a viewer on a read-only console", () => {
  let app: ExtraConsole;

  test.beforeAll(async () => {
    test.setTimeout(120_000);
    app = await startConsole({
      DW_TOKEN: token,
      BREAKWATER_READ_ONLY: "1",
      BREAKWATER_AUTH: "password",
      BREAKWATER_USERS_FILE: writeUsersFile(mkdtempSync(join(tmpdir(), "bw-queries-"))),
      BREAKWATER_SESSION_SECRET: SESSION_SECRET,
    });
  });

  test.afterAll(async () => {
    await app?.stop();
  });

  test("queries an open run that declares no queries, by a name typed in", async ({ page }) => {
    const workflowId = `refund-q-${unique()}`;
    const runId = await start("RefundApprovalWorkflow", workflowId, [`order-${workflowId}`]);
    await waitFor(`${workflowId} to wait`, async () => (await liveness(workflowId, runId)) === "waiting_for_signal");
    await page.goto(`${app.baseUrl}${runPath(workflowId, runId)}?view=queries`);
    await expect(page).toHaveURL(/\/login(\?|$)/);
    await page.getByLabel("User name").fill("vic");
    await page.getByLabel("Password").fill(PASSWORDS.vic);
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page.getByTestId("account-status")).toContainText("Signed in as vic");
    await expect(page.getByTestId("queries-tab")).toBeVisible({ timeout: 20_000 });
    await expect(page.getByTestId("queries-tab")).toContainText("declares no queries: type the name");
    const answer = await ask(page, "status");
    await expect(answer).toHaveAttribute("data-outcome", "answered");
    await expect(answer.getByTestId("query-result")).toContainText('"stage": "waiting for approve"');
  });
});
