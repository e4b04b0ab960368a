import { existsSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "@playwright/test";
import type { SdkRuns } from "./sdk-runs";
import { expectRefusedActivity, expectRetriedActivity, makeSdkRuns } from "./sdk-runs";

/**
 * Runs made by the official Python SDK (durable-workflow from PyPI, in .venv-sdk) against the
 * embedded e2e server, as the console shows them: the retried activity's attempts and backoffs,
 * the timeline's retries, and a failure stopped by non_retryable_error_types. The SDK runs come
 * from conformance/python-sdk/e2e_runs.py; a missing venv fails the spec (scripts/python-sdk.sh
 * makes it, and npm test runs that before Playwright).
 */

const dwHost = process.env.E2E_DW_HOST ?? "";
const python = join(__dirname, "..", ".venv-sdk", "bin", "python");

let runs: SdkRuns | null = null;

function sdkRuns(): SdkRuns {
  if (runs) return runs;
  if (!existsSync(python))
    throw new Error(`the official SDK venv is missing (${python}); run: bash scripts/python-sdk.sh`);
  runs = makeSdkRuns(python, [join(__dirname, "..", "conformance", "python-sdk", "e2e_runs.py")], 90_000);
  return runs;
}

test.describe("runs made by the official Python SDK", () => {
  test.skip(!dwHost, "no Durable Workflow server for e2e");

  test.beforeAll(() => {
    test.setTimeout(120_000);
    sdkRuns();
  });

  test("a retried SDK activity shows its attempts, errors, backoffs and timeline retries", async ({ page }) => {
    // The SDK's retry policy: backoff_seconds [1, 2], applied per retry.
    await expectRetriedActivity(page, sdkRuns().retried, "ValueError");
    await expect(page.getByTestId("exception-row")).toHaveCount(0);

    await page.getByRole("tab", { name: "Timeline" }).click();
    await expect(page.getByTestId("timeline-chart").getByTestId("timeline-retry")).toHaveCount(2);
  });

  test("a failure stopped by non_retryable_error_types shows once, handled by the workflow", async ({ page }) => {
    await expectRefusedActivity(page, sdkRuns().refused);
  });
});
