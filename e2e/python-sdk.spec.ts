import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "@playwright/test";

/**
 * Runs made by the official Python SDK (durable-workflow from PyPI, in .venv-sdk) against the
 * embedded e2e server, as the console shows them: the retried activity's attempts and backoffs,
 * the timeline's retries, and a failure stopped by non_retryable_error_types. The SDK runs come
 * from conformance/python-sdk/e2e_runs.py; a missing venv fails the spec (scripts/python-sdk.sh
 * makes it, and npm test runs that before Playwright).
 */

const dwHost = process.env.E2E_DW_HOST ?? "";
const python = join(__dirname, "..", ".venv-sdk", "bin", "python");

type Runs = { retried: [string, string]; refused: [string, string] };
let runs: Runs | null = null;

function sdkRuns(): Runs {
  if (runs) return runs;
  if (!existsSync(python))
    throw new Error(`the official SDK venv is missing (${python}); run: bash scripts/python-sdk.sh`);
  const out = execFileSync(python, [join(__dirname, "..", "conformance", "python-sdk", "e2e_runs.py")], {
    env: {
      ...process.env,
      DW_URL: `http://${dwHost}`,
      DW_CONTROL_TOKEN: process.env.E2E_TOKEN ?? "",
      DW_WORKER_TOKEN: process.env.E2E_WORKER_TOKEN ?? "",
      RUN_SUFFIX: "e2e",
    },
    encoding: "utf8",
    timeout: 90_000,
    stdio: ["ignore", "pipe", "pipe"],
  });
  runs = JSON.parse(out.trim().split("\n").at(-1) ?? "{}") as Runs;
  return runs;
}

const runPath = ([workflowId, runId]: [string, string]) =>
  `/workflows/${encodeURIComponent(workflowId)}/runs/${encodeURIComponent(runId)}`;

test.describe("runs made by the official Python SDK", () => {
  test.skip(!dwHost, "no Durable Workflow server for e2e");

  test.beforeAll(() => {
    test.setTimeout(120_000);
    sdkRuns();
  });

  test("a retried SDK activity shows its attempts, errors, backoffs and timeline retries", async ({ page }) => {
    const { retried } = sdkRuns();
    await page.goto(`${runPath(retried)}?view=activities`);
    const header = page.getByTestId("run-header");
    await expect(header.getByTestId("run-workflow-id")).toHaveText(retried[0]);
    await expect(header.locator("[data-status]").first()).toHaveText("completed");

    const activity = page.getByTestId("ledger-activity").filter({ hasText: "conformance.flaky" });
    await expect(activity).toBeVisible();
    await expect(activity.getByTestId("attempt-row")).toHaveCount(3);
    // The SDK's retry policy: backoff_seconds [1, 2], applied per retry.
    for (const [n, backoff] of [
      [1, 1],
      [2, 2],
    ] as const) {
      const row = activity.locator(`[data-attempt="${n}"]`);
      await expect(row.locator("[data-status]")).toHaveText("failed");
      await expect(row.getByTestId("attempt-failure")).toContainText("ValueError");
      await expect(row.getByTestId("attempt-failure")).toContainText(`attempt ${n} fails`);
      await expect(row.getByTestId("attempt-backoff")).toContainText(`${backoff} s, then attempt ${n + 1} due`);
    }
    await expect(activity.locator('[data-attempt="3"]').locator("[data-status]")).toHaveText("completed");
    await expect(page.getByTestId("exception-row")).toHaveCount(0);

    await page.getByRole("tab", { name: "Timeline" }).click();
    await expect(page.getByTestId("timeline-chart").getByTestId("timeline-retry")).toHaveCount(2);
  });

  test("a failure stopped by non_retryable_error_types shows once, handled by the workflow", async ({ page }) => {
    const { refused } = sdkRuns();
    await page.goto(`${runPath(refused)}?view=activities`);
    await expect(page.getByTestId("run-header").locator("[data-status]").first()).toHaveText("completed");
    const activity = page.getByTestId("ledger-activity").filter({ hasText: "conformance.refuse-by-type" });
    await expect(activity.getByTestId("attempt-row")).toHaveCount(1);
    await expect(activity.locator('[data-attempt="1"]').getByTestId("attempt-failure")).toContainText(
      "PaymentDeclined",
    );
    await expect(activity.locator('[data-attempt="1"]').getByTestId("attempt-failure")).toContainText(
      "insufficient funds",
    );
  });
});
