// Totals the vitest and Playwright JSON reports into the one plain line CI reads:
// "N passed, N failed". A missing or unreadable report counts as one failure, and so does a
// failed lint/typecheck/build step (passed in as the third argument), so nothing fails silently.
import { readFileSync } from "node:fs";

const [vitestFile, e2eFile, stepFailures = "0"] = process.argv.slice(2);
const read = (f) => {
  try {
    return JSON.parse(readFileSync(f, "utf8"));
  } catch {
    return null;
  }
};
const v = read(vitestFile);
const e = read(e2eFile);
const unitPassed = v ? v.numPassedTests : 0;
const unitFailed = v ? v.numFailedTests : 1;
const unitSkipped = v ? v.numPendingTests + v.numTodoTests : 0;
const e2ePassed = e ? e.stats.expected + e.stats.flaky : 0;
const e2eFailed = e ? e.stats.unexpected : 1;
const e2eSkipped = e ? e.stats.skipped : 0;
const steps = Number(stepFailures) > 0 ? 1 : 0;
console.log(`unit: ${unitPassed} passed, ${unitFailed} failed, ${unitSkipped} skipped`);
console.log(`e2e: ${e2ePassed} passed, ${e2eFailed} failed, ${e2eSkipped} skipped`);
if (steps) console.log("lint, typecheck or build: failed (counted as 1 failure)");
const passed = unitPassed + e2ePassed;
const failed = unitFailed + e2eFailed + steps;
console.log(`${passed} passed, ${failed} failed`);
if (passed === 0) {
  console.error("no tests ran");
  process.exit(1);
}
process.exit(failed > 0 ? 1 : 0);
