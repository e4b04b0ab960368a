#!/usr/bin/env bash
# Every test Breakwater has: lint, typecheck, the Kikwiflow test host build, unit/contract/engine
# tests (vitest, the Kikwiflow suite against the real engine), the official
# Python SDK's conformance suite (pytest), the official Rust SDK's (cargo), a production build,
# then the UI in real Chromium (Playwright) against the embedded server. Ends with one
# plain line "N passed, N failed" totalled from the JSON reporters (CI reads that line).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

export NEXT_TELEMETRY_DISABLED=1
export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1
export CHROMIUM_PATH="${CHROMIUM_PATH:-/usr/bin/chromium}"
# The build runs with a canary token so that the security test can prove no token reaches the
# client bundle or the HTML.
export E2E_TOKEN="bw-secret-token-canary"
OUT=.ci-out
rm -rf "$OUT"; mkdir -p "$OUT"
t0=$SECONDS
step() { echo; echo "=== [$((SECONDS - t0))s] $*"; }
fail=0

step "lint"
npm run -s lint || fail=1

step "typecheck"
npx next typegen >/dev/null && npx tsc --noEmit || fail=1

step "Kikwiflow test host (scripts/kikwiflow.sh, Temurin 25)"
# The Kikwiflow suites run against the real engine, built from the vendored source; a failed build
# fails the run here and again in vitest (lib/kikwiflow/engine.test.ts fails without the jar).
export KIKWIFLOW_JAVA_HOME="${KIKWIFLOW_JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}"
export KIKWIFLOW_JAVA="$KIKWIFLOW_JAVA_HOME/bin/java"
kikwiflow_t0=$SECONDS
if KIKWIFLOW_HOST_JAR=$(bash scripts/kikwiflow.sh | tail -n 1) && [ -f "$KIKWIFLOW_HOST_JAR" ]; then
  export KIKWIFLOW_HOST_JAR
  echo "Kikwiflow host: $KIKWIFLOW_HOST_JAR ($((SECONDS - kikwiflow_t0))s)"
else
  echo "Kikwiflow host build failed"
  unset KIKWIFLOW_HOST_JAR
  fail=1
fi

step "unit, contract and engine tests (vitest)"
npx vitest run --reporter=default --reporter=json --outputFile.json="$OUT/vitest.json"
unit_rc=$?

step "official Python SDK conformance (pytest, durable-workflow from PyPI)"
# Real SDK workers and the SDK client against the embedded server over HTTP. A venv or SDK that
# cannot be set up fails this step: no junit report, which the summary counts as a failure.
sdk_python=$(bash scripts/python-sdk.sh | tail -n 1) && [ -x "$sdk_python" ] \
  && "$sdk_python" -m pytest conformance/python-sdk -q --junitxml="$OUT/python-sdk.xml"
sdk_rc=$?

step "official Rust SDK conformance (cargo test, durable-workflow from crates.io)"
# Real SDK workers and clients against the embedded server over HTTP; the build is cached outside the
# clone (conformance/rust-sdk/cargo.sh). No cargo, a failed build or a failed start writes no junit
# report, which the summary counts as a failure. It also builds the e2e-runs binary Playwright uses.
RUST_SDK_JUNIT="$PWD/$OUT/rust-sdk.xml" bash conformance/rust-sdk/cargo.sh test --locked --test conformance
rust_rc=$?

step "production build"
DW_TOKEN="$E2E_TOKEN" npm run build || fail=1

step "UI tests (Playwright + Chromium)"
PLAYWRIGHT_JSON_OUTPUT_NAME="$OUT/e2e.json" npx playwright test
e2e_rc=$?

step "summary (${SECONDS}s)"
node scripts/test-summary.mjs "$OUT/vitest.json" "$OUT/e2e.json" "$fail" "$OUT/python-sdk.xml" "$OUT/rust-sdk.xml"
summary_rc=$?
if [ "$unit_rc" -ne 0 ] || [ "$sdk_rc" -ne 0 ] || [ "$rust_rc" -ne 0 ] || [ "$e2e_rc" -ne 0 ] || [ "$fail" -ne 0 ] || [ "$summary_rc" -ne 0 ]; then
  exit 1
fi
