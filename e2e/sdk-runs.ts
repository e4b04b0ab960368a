import { execFileSync } from "node:child_process";
import { expect } from "@playwright/test";
import type { Page } from "@playwright/test";

/**
 * The runs an official SDK makes for the e2e specs (python-sdk.spec.ts, rust-sdk.spec.ts), and what
 * the console must show of them. Each SDK's program prints `{"retried": [wf, run], "refused": [wf, run]}`
 * on its last line; both use the same scenarios, so the run page must read them the same way.
 */

export type SdkRuns = { retried: [string, string]; refused: [string, string] };

/** Runs `command` against the e2e server with the e2e tokens and parses its last line. */
export function makeSdkRuns(command: string, args: string[], timeoutMs: number): SdkRuns {
  const out = execFileSync(command, args, {
    env: {
      ...process.env,
      DW_URL: `http://${process.env.E2E_DW_HOST ?? ""}`,
      DW_CONTROL_TOKEN: process.env.E2E_TOKEN ?? "",
      DW_WORKER_TOKEN: process.env.E2E_WORKER_TOKEN ?? "",
      RUN_SUFFIX: "e2e",
    },
    encoding: "utf8",
    timeout: timeoutMs,
    stdio: ["ignore", "pipe", "pipe"],
  });
  return JSON.parse(out.trim().split("\n").at(-1) ?? "{}") as SdkRuns;
}

export const sdkRunPath = ([workflowId, runId]: [string, string]): string =>
  `/workflows/${encodeURIComponent(workflowId)}/runs/${encodeURIComponent(runId)}`;

/** The flaky activity: two failed attempts with the SDK's error type, backoffs 1 s and 2 s, then success. */
export async function expectRetriedActivity(page: Page, run: [string, string], errorType: string): Promise<void> {
  await page.goto(`${sdkRunPath(run)}?view=activities`);
  const header = page.getByTestId("run-header");
  await expect(header.getByTestId("run-workflow-id")).toHaveText(run[0]);
  await expect(header.locator("[data-status]").first()).toHaveText("completed");

  const activity = page.getByTestId("ledger-activity").filter({ hasText: "conformance.flaky" });
  await expect(activity.getByTestId("attempt-row")).toHaveCount(3);
  for (const [n, backoff] of [
    [1, 1],
    [2, 2],
  ] as const) {
    const row = activity.locator(`[data-attempt="${n}"]`);
    await expect(row.locator("[data-status]")).toHaveText("failed");
    await expect(row.getByTestId("attempt-failure")).toContainText(errorType);
    await expect(row.getByTestId("attempt-failure")).toContainText(`attempt ${n} fails`);
    await expect(row.getByTestId("attempt-backoff")).toContainText(`${backoff} s, then attempt ${n + 1} due`);
  }
  await expect(activity.locator('[data-attempt="3"]').locator("[data-status]")).toHaveText("completed");
}

/** The activity stopped by non_retryable_error_types: one attempt, its failure, the run still completed. */
export async function expectRefusedActivity(page: Page, run: [string, string]): Promise<void> {
  await page.goto(`${sdkRunPath(run)}?view=activities`);
  await expect(page.getByTestId("run-header").locator("[data-status]").first()).toHaveText("completed");
  const activity = page.getByTestId("ledger-activity").filter({ hasText: "conformance.refuse-by-type" });
  await expect(activity.getByTestId("attempt-row")).toHaveCount(1);
  const failure = activity.locator('[data-attempt="1"]').getByTestId("attempt-failure");
  await expect(failure).toContainText("PaymentDeclined");
  await expect(failure).toContainText("insufficient funds");
}
