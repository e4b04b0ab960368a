// Totals the vitest and Playwright JSON reports and the official SDKs' conformance suites' junit XML
// (Python: pytest's; Rust: the suite's own harness in conformance/rust-sdk) into the one plain line
// CI reads: "N passed, N failed". A missing or unreadable report counts as one failure, and so does
// a failed lint/typecheck/build step (passed in as the third argument), so nothing fails silently. A skipped test counts as failed, in every suite: the
// test command sets up everything the tests need (embedded server, build, SDK, engine), so a skip
// means a part was missing, and that must not pass as green.
import { readFileSync } from "node:fs";

const [vitestFile, e2eFile, stepFailures = "0", sdkFile, rustFile] = process.argv.slice(2);
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
const unitSkipped = v ? v.numPendingTests + v.numTodoTests : 0;
const unitFailed = v ? v.numFailedTests + unitSkipped : 1;
const e2ePassed = e ? e.stats.expected + e.stats.flaky : 0;
const e2eSkipped = e ? e.stats.skipped : 0;
const e2eFailed = e ? e.stats.unexpected + e2eSkipped : 1;
const python = junitCounts(sdkFile);
const rust = junitCounts(rustFile);
const steps = Number(stepFailures) > 0 ? 1 : 0;
console.log(`unit: ${unitPassed} passed, ${unitFailed} failed (${unitSkipped} skipped, counted as failed)`);
if (python) console.log(`python sdk conformance: ${python.line}`);
if (rust) console.log(`rust sdk conformance: ${rust.line}`);
console.log(`e2e: ${e2ePassed} passed, ${e2eFailed} failed (${e2eSkipped} skipped, counted as failed)`);
if (steps) console.log("lint, typecheck or build: failed (counted as 1 failure)");
const sdks = [python, rust].filter(Boolean);
const passed = unitPassed + sdks.reduce((n, s) => n + s.passed, 0) + e2ePassed;
const failed = unitFailed + sdks.reduce((n, s) => n + s.failed, 0) + e2eFailed + steps;
console.log(`${passed} passed, ${failed} failed`);
if (passed === 0) {
  console.error("no tests ran");
  process.exit(1);
}
process.exit(failed > 0 ? 1 : 0);

/**
 * One conformance suite's counts from its junit report, null when the suite was not asked for
 * (no file argument). A missing or empty report is one failure: the suite could not run.
 */
function junitCounts(file) {
  if (!file) return null;
  const t = junitTotals(file);
  if (!t) return { passed: 0, failed: 1, line: "0 passed, 1 failed (no report)" };
  const passed = t.tests - t.failures - t.errors - t.skipped;
  const failed = t.failures + t.errors + t.skipped;
  return { passed, failed, line: `${passed} passed, ${failed} failed (${t.skipped} skipped, counted as failed)` };
}

/** Sums a junit report's `<testsuite>` counters; null when the file is missing or has no suite. */
function junitTotals(file) {
  let xml;
  try {
    xml = readFileSync(file, "utf8");
  } catch {
    return null;
  }
  const totals = { tests: 0, failures: 0, errors: 0, skipped: 0 };
  let suites = 0;
  for (const [, attrs] of xml.matchAll(/<testsuite\b([^>]*)>/g)) {
    suites += 1;
    for (const key of Object.keys(totals)) {
      const m = new RegExp(`\\b${key}="(\\d+)"`).exec(attrs);
      totals[key] += m ? Number(m[1]) : 0;
    }
  }
  return suites > 0 && totals.tests > 0 ? totals : null;
}
