import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { test } from "@playwright/test";
import type { SdkRuns } from "./sdk-runs";
import { expectRefusedActivity, expectRetriedActivity, makeSdkRuns } from "./sdk-runs";

/**
 * Runs made by the official Rust SDK (crates.io durable-workflow, pinned in
 * conformance/rust-sdk/Cargo.toml) against the embedded e2e server, as the console shows them: the
 * retried activity's attempts, errors and backoffs, and a failure stopped by
 * non_retryable_error_types. The runs come from the suite's `e2e-runs` binary; a missing build
 * fails the spec (npm test builds it in the Rust SDK step, before Playwright).
 */

const dwHost = process.env.E2E_DW_HOST ?? "";
const cargoSh = join(__dirname, "..", "conformance", "rust-sdk", "cargo.sh");
let runs: SdkRuns | null = null;

function sdkRuns(): SdkRuns {
  if (runs) return runs;
  const targetDir = execFileSync("bash", [cargoSh, "--target-dir"], { encoding: "utf8" }).trim();
  const binary = join(targetDir, "debug", "e2e-runs");
  if (!existsSync(binary))
    throw new Error(`the Rust SDK e2e binary is missing (${binary}); run: bash ${cargoSh} build --locked --bins`);
  runs = makeSdkRuns(binary, [], 120_000);
  return runs;
}

test.describe("runs made by the official Rust SDK", () => {
  test.skip(!dwHost, "no Durable Workflow server for e2e");

  test.beforeAll(() => {
    test.setTimeout(150_000);
    sdkRuns();
  });

  test("a retried Rust activity shows its attempts, errors and backoffs", async ({ page }) => {
    // The SDK's policy: backoff_intervals [1 s, 2 s], applied per retry.
    await expectRetriedActivity(page, sdkRuns().retried, "FlakyError");
  });

  test("a Rust failure stopped by non_retryable_error_types shows once, handled by the workflow", async ({ page }) => {
    await expectRefusedActivity(page, sdkRuns().refused);
  });
});
