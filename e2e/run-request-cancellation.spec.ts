import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "@playwright/test";
import type { Locator, Page } from "@playwright/test";
import {
  historyOf,
  PASSWORDS,
  runPath,
  runStatus,
  SESSION_SECRET,
  startConsole,
  writeUsersFile,
} from "./operator-fixtures";
import type { ExtraConsole } from "./operator-fixtures";

/**
 * Request cancellation on the run page (issue 41), against runs the official Python SDK serves with
 * a worker that opts in to cooperative cancellation (conformance/python-sdk/e2e_cancellation.py):
 * offered before Cancel and Terminate with what each does to running activities, a cleanup bound
 * checked before sending, the outcome confirmed from the run's history (request, delivery at the
 * timer, WorkflowCancelled), a workflow that ignores the request closed at its deadline without a
 * delivery being claimed, the server's refusal of a run it cannot reach said in words, and a viewer
 * and a read-only console refused with their reason. A missing SDK venv fails the spec.
 */

type Run = [string, string];
type Runs = { cleanup: Run; untouched: Run; shielded: Run; condition: Run };

const token = process.env.E2E_TOKEN ?? "bw-secret-token-canary";
const python = join(__dirname, "..", ".venv-sdk", "bin", "python");
const SHOTS = process.env.E2E_SHOTS_DIR ?? join(__dirname, "..", "test-results", "screenshots");
mkdirSync(SHOTS, { recursive: true });

let worker: ChildProcess | null = null;
let runs: Runs;

/** Starts the SDK worker and its runs; resolves with the ids it prints once every run waits. */
function startSdkWorker(): Promise<Runs> {
  if (!existsSync(python))
    throw new Error(`the official SDK venv is missing (${python}); run: bash scripts/python-sdk.sh`);
  const child = spawn(python, [join(__dirname, "..", "conformance", "python-sdk", "e2e_cancellation.py")], {
    env: {
      ...process.env,
      DW_URL: `http://${process.env.E2E_DW_HOST ?? ""}`,
      DW_CONTROL_TOKEN: token,
      DW_WORKER_TOKEN: process.env.E2E_WORKER_TOKEN ?? "",
      RUN_SUFFIX: Date.now().toString(36),
    },
    stdio: ["pipe", "pipe", "pipe"],
  });
  worker = child;
  let out = "";
  let err = "";
  child.stderr?.on("data", (chunk: Buffer) => (err += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.stdout?.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const line = out.split("\n").find((l) => l.startsWith("{"));
      if (line && out.includes("\n")) resolve(JSON.parse(line) as Runs);
    });
    child.once("exit", (code) => reject(new Error(`the SDK worker exited (${code}) before its runs waited:\n${err}`)));
  });
}

test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  test.setTimeout(120_000);
  runs = await startSdkWorker();
});

test.afterAll(async () => {
  const child = worker;
  if (child?.pid === undefined || child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.stdin?.end(); // the worker stops and deregisters when its stdin closes
  await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 20_000))]);
  if (child.exitCode === null) process.kill(child.pid, "SIGKILL");
});

const button = (page: Page, action: string) =>
  page.getByTestId("run-actions").locator(`button[data-action="${action}"]`);

async function openRun(page: Page, base: string, [workflowId, runId]: Run): Promise<void> {
  await page.goto(`${base}${runPath(workflowId, runId)}`);
  await expect(page.getByTestId("run-actions")).toBeVisible({ timeout: 20_000 });
}

/** The open dialog light and dark, wide and narrow, for a person to look at. */
async function shoot(page: Page, target: Locator, name: string): Promise<void> {
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
      await target.scrollIntoViewIfNeeded();
      await page.screenshot({ path: join(SHOTS, `request-cancellation-${name}-${label}-${scheme}.png`) });
    }
  }
  await page.emulateMedia({ colorScheme: "light" });
  await page.setViewportSize({ width: 1440, height: 900 });
}

async function request(page: Page, seconds: string, reason = ""): Promise<void> {
  await button(page, "requestCancellation").click();
  const dialog = page.getByTestId("action-dialog");
  await dialog.locator('input[name="cleanupTimeout"]').fill(seconds);
  await dialog.locator('textarea[name="reason"]').fill(reason);
  await dialog.getByTestId("action-submit").click();
}

const step = (page: Page, id: string) => page.getByTestId("confirmation").locator(`[data-step="${id}"]`);

test("offered before Cancel and Terminate, each saying what it does to running activities", async ({
  page,
  baseURL,
}) => {
  await openRun(page, baseURL ?? "", runs.cleanup);
  await expect(button(page, "requestCancellation")).toBeEnabled({ timeout: 20_000 });
  await expect(button(page, "requestCancellation")).toHaveText("Request cancellation");
  const order = await page
    .getByTestId("run-actions")
    .locator("button[data-action]")
    .evaluateAll((buttons) => buttons.map((b) => b.getAttribute("data-action")));
  expect(order.indexOf("requestCancellation")).toBeLessThan(order.indexOf("cancel"));
  expect(order.indexOf("cancel")).toBeLessThan(order.indexOf("terminate"));

  // The dialog starts at the server's default bound.
  await button(page, "requestCancellation").click();
  await expect(page.locator('input[name="cleanupTimeout"]')).toHaveValue("600");
  await shoot(page, page.getByTestId("action-dialog"), "dialog");
  await page.getByTestId("action-dialog").getByRole("button", { name: "Close" }).click();

  for (const [action, own] of [
    ["requestCancellation", "Nothing stops at once"],
    ["cancel", "Closes the run now as cancelled"],
    ["terminate", "Closes the run now as terminated"],
  ] as const) {
    await button(page, action).click();
    const effects = page.getByTestId("action-dialog").getByTestId("stop-effects");
    await expect(effects).toContainText("What each stop does to running activities");
    await expect(effects.locator("li[data-effect]")).toHaveCount(3);
    await expect(effects.locator('li[aria-current="true"]')).toContainText(own);
    await page.getByTestId("action-dialog").getByRole("button", { name: "Close" }).click();
  }

  // A bound outside 1–3600 s is refused on its field; nothing is sent.
  await request(page, "0");
  await expect(page.getByTestId("action-dialog")).toContainText("Give a whole number of seconds from 1 to 3600.");
  await expect(page.getByTestId("action-status")).toHaveCount(0);
  await page.getByTestId("action-dialog").getByRole("button", { name: "Close" }).click();
});

test("the request is confirmed from history: recorded with its deadline, delivered at the timer, closed cancelled", async ({
  page,
  baseURL,
}) => {
  test.setTimeout(90_000);
  await openRun(page, baseURL ?? "", runs.cleanup);
  await expect(button(page, "requestCancellation")).toBeEnabled({ timeout: 20_000 });
  await request(page, "120", "maintenance window");
  const status = page.getByTestId("action-status");
  await expect(status.locator('[data-state="accepted"]')).toContainText("cancellation_requested");
  await expect(page.getByTestId("confirmation")).toHaveAttribute("data-phase", "confirmed", { timeout: 60_000 });
  await expect(step(page, "command_recorded")).toContainText("CooperativeCancellationRequested");
  await expect(step(page, "command_recorded")).toContainText("cleanup deadline");
  await expect(step(page, "cancellation_delivered")).toHaveAttribute("data-status", "done");
  await expect(step(page, "cancellation_delivered")).toContainText("told at its timer");
  await expect(step(page, "run_closed")).toContainText("WorkflowCancelled");
  await expect(step(page, "run_closed")).toContainText("cleanup completed");
  await expect(step(page, "status_final")).toContainText("cancelled");
  await shoot(page, status, "confirmed");

  // What the page claimed is what the server recorded: the 120 s bound, the reason, the cleanup activity.
  const [workflowId, runId] = runs.cleanup;
  const events = await historyOf(workflowId, runId);
  const requested = events.find((e) => e.event_type === "CooperativeCancellationRequested")?.payload ?? {};
  const context = requested.cancellation as { requested_at: string; cleanup_deadline_at: string };
  expect(Date.parse(context.cleanup_deadline_at) - Date.parse(context.requested_at)).toBe(120_000);
  expect(requested.reason).toBe("maintenance window");
  expect(events.map((e) => e.event_type)).toContain("ActivityCompleted");

  // Once the run has closed the page no longer offers it, and says why.
  await page.reload();
  await expect(button(page, "requestCancellation")).toBeDisabled({ timeout: 20_000 });
  await expect(page.getByTestId("action-reasons")).toContainText("The run is closed.");
});

test("a workflow that ignores the request is closed at its deadline, and no delivery is claimed", async ({
  page,
  baseURL,
}) => {
  test.setTimeout(90_000);
  await openRun(page, baseURL ?? "", runs.shielded);
  await expect(button(page, "requestCancellation")).toBeEnabled({ timeout: 20_000 });
  await request(page, "2");
  await expect(page.getByTestId("confirmation")).toHaveAttribute("data-phase", "confirmed", { timeout: 60_000 });
  await expect(step(page, "cancellation_delivered")).toHaveAttribute("data-status", "skipped");
  await expect(step(page, "cancellation_delivered")).toContainText("Never delivered");
  await expect(step(page, "cancellation_delivered")).toContainText("deadline_expired");
  await expect(step(page, "run_closed")).toContainText("cleanup deadline_expired");
  const events = await historyOf(...runs.shielded);
  expect(events.map((e) => e.event_type)).not.toContain("CooperativeCancellationDelivered");
});

test("a run the server cannot reach is refused, in the server's words, and stays open", async ({ page, baseURL }) => {
  await openRun(page, baseURL ?? "", runs.condition);
  await expect(button(page, "requestCancellation")).toBeEnabled({ timeout: 20_000 });
  await request(page, "60");
  const rejected = page.getByTestId("action-status").locator('[data-state="rejected"]');
  await expect(rejected).toContainText("HTTP 422");
  await expect(rejected).toContainText("waiting for a signal or condition");
  await expect(page.getByTestId("confirmation")).toHaveCount(0);
  await shoot(page, page.getByTestId("action-status"), "refused");
  expect(await runStatus(...runs.condition)).not.toMatch(/cancelled|terminated/);
});

test.describe("refused for a viewer and on a read-only console", () => {
  let app: ExtraConsole;
  let readOnly: ExtraConsole;

  test.beforeAll(async () => {
    test.setTimeout(150_000);
    const users = writeUsersFile(mkdtempSync(join(tmpdir(), "bw-cc-")));
    const auth = {
      BREAKWATER_AUTH: "password",
      BREAKWATER_USERS_FILE: users,
      BREAKWATER_SESSION_SECRET: SESSION_SECRET,
    };
    app = await startConsole({ DW_TOKEN: token, ...auth });
    readOnly = await startConsole({ DW_TOKEN: token, BREAKWATER_READ_ONLY: "1" });
  });

  test.afterAll(async () => {
    await app?.stop();
    await readOnly?.stop();
  });

  test("a viewer sees it disabled with the role it needs, and the guard refuses a forged request", async ({ page }) => {
    const [workflowId, runId] = runs.untouched;
    await page.goto(`${app.baseUrl}${runPath(workflowId, runId)}`);
    await page.getByLabel("User name").fill("vic");
    await page.getByLabel("Password").fill(PASSWORDS.vic);
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page.getByTestId("account-status")).toContainText("Signed in as vic");
    await expect(page.getByTestId("action-reasons")).not.toContainText("Checking", { timeout: 20_000 });
    await expect(button(page, "requestCancellation")).toBeDisabled();
    await expect(button(page, "requestCancellation")).toHaveAttribute(
      "title",
      "Requires the operator role; you are signed in as viewer.",
    );
    const forged = await page.evaluate(
      async ({ workflowId, runId }) => {
        const response = await fetch("/api/actions/runs", {
          method: "POST",
          headers: { "content-type": "application/json", "x-namespace": "default" },
          body: JSON.stringify({
            action: "requestCancellation",
            workflowId,
            runId,
            requestId: "bw-forged-request-1",
            cleanupTimeoutSeconds: 60,
          }),
        });
        return { status: response.status, body: (await response.json()) as { reason?: string; message?: string } };
      },
      { workflowId, runId },
    );
    expect(forged.status).toBe(403);
    expect(forged.body.message).toMatch(/operator/i);
    const events = await historyOf(workflowId, runId);
    expect(events.map((e) => e.event_type)).not.toContain("CooperativeCancellationRequested");
  });

  test("a read-only console disables it with its reason", async ({ page }) => {
    await page.goto(`${readOnly.baseUrl}${runPath(...runs.untouched)}`);
    await expect(page.getByTestId("action-reasons")).not.toContainText("Checking", { timeout: 20_000 });
    await expect(button(page, "requestCancellation")).toBeDisabled();
    await expect(button(page, "requestCancellation")).toHaveAttribute("title", "The console is in read-only mode.");
    const events = await historyOf(...runs.untouched);
    expect(events.map((e) => e.event_type)).not.toContain("CooperativeCancellationRequested");
  });
});
