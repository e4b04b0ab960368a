import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "@playwright/test";

/**
 * Runs made by the official Rust SDK (crates.io durable-workflow, pinned in
 * conformance/rust-sdk/Cargo.toml) against the embedded e2e server, as the console shows them: the
 * retried activity's attempts, errors and backoffs, and a failure stopped by
 * non_retryable_error_types. The runs come from the suite's `e2e-runs` binary; a missing build
 * fails the spec (npm test builds it in the Rust SDK step, before Playwright).
 */

const dwHost = process.env.E2E_DW_HOST ?? "";
const cargoSh = join(__dirname, "..", "conformance", "rust-sdk", "cargo.sh");

type Runs = { retried: [string, string]; refused: [string, string] };
let runs: Runs | null = null;

function sdkRuns(): Runs {
  if (runs) return runs;
  const targetDir = execFileSync("bash", [cargoSh, "--target-dir"], { encoding: "utf8" }).trim();
  const binary = join(targetDir, "debug", "e2e-runs");
  if (!existsSync(binary))
    throw new Error(`the Rust SDK e2e binary is missing (${binary}); run: bash ${cargoSh} build --locked --bins`);
  const out = execFileSync(binary, [], {
    env: {
      ...process.env,
      DW_URL: `http://${dwHost}`,
      DW_CONTROL_TOKEN: process.env.E2E_TOKEN ?? "",
      DW_WORKER_TOKEN: process.env.E2E_WORKER_TOKEN ?? "",
      RUN_SUFFIX: "e2e",
    },
    encoding: "utf8",
    timeout: 120_000,
    stdio: ["ignore", "pipe", "pipe"],
  });
  runs = JSON.parse(out.trim().split("\n").at(-1) ?? "{}") as Runs;
  return runs;
}

const runPath = ([workflowId, runId]: [string, string]) =>
  `/workflows/${encodeURIComponent(workflowId)}/runs/${encodeURIComponent(runId)}`;

test.describe("runs made by the official Rust SDK", () => {
  test.skip(!dwHost, "no Durable Workflow server for e2e");

  test.beforeAll(() => {
    test.setTimeout(150_000);
    sdkRuns();
  });

  test("a retried Rust activity shows its attempts, errors and backoffs", async ({ page }) => {
    const { retried } = sdkRuns();
    await page.goto(`${runPath(retried)}?view=activities`);
    const header = page.getByTestId("run-header");
    await expect(header.getByTestId("run-workflow-id")).toHaveText(retried[0]);
    await expect(header.locator("[data-status]").first()).toHaveText("completed");

    const activity = page.getByTestId("ledger-activity").filter({ hasText: "conformance.flaky" });
    await expect(activity.getByTestId("attempt-row")).toHaveCount(3);
    // The SDK's policy: backoff_intervals [1 s, 2 s], applied per retry.
    for (const [n, backoff] of [
      [1, 1],
      [2, 2],
    ] as const) {
      const row = activity.locator(`[data-attempt="${n}"]`);
      await expect(row.locator("[data-status]")).toHaveText("failed");
      await expect(row.getByTestId("attempt-failure")).toContainText("FlakyError");
      await expect(row.getByTestId("attempt-failure")).toContainText(`attempt ${n} fails`);
      await expect(row.getByTestId("attempt-backoff")).toContainText(`${backoff} s, then attempt ${n + 1} due`);
    }
    await expect(activity.locator('[data-attempt="3"]').locator("[data-status]")).toHaveText("completed");
  });

  test("a Rust failure stopped by non_retryable_error_types shows once, handled by the workflow", async ({ page }) => {
    const { refused } = sdkRuns();
    await page.goto(`${runPath(refused)}?view=activities`);
    await expect(page.getByTestId("run-header").locator("[data-status]").first()).toHaveText("completed");
    const activity = page.getByTestId("ledger-activity").filter({ hasText: "conformance.refuse-by-type" });
    await expect(activity.getByTestId("attempt-row")).toHaveCount(1);
    const failure = activity.locator('[data-attempt="1"]').getByTestId("attempt-failure");
    await expect(failure).toContainText("PaymentDeclined");
    await expect(failure).toContainText("insufficient funds");
  });
});
