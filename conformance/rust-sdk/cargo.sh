#!/usr/bin/env bash
# cargo for the Rust SDK conformance suite, with its build cached outside the clone:
# CARGO_TARGET_DIR is ${XDG_CACHE_HOME:-~/.cache}/breakwater/rust-sdk-<hash of Cargo.lock>, so a
# fresh clone on the same machine (how CI runs) reuses the dependency build (2.5 min on two idle
# cores, 11.5 min on two busy ones; then ~50 s for this crate alone), and a changed lock file gets a
# new directory. `cargo.sh --target-dir` prints that directory and builds nothing.
# A missing cargo fails here, loudly; the suite never skips.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
if ! command -v cargo >/dev/null 2>&1; then
  echo "cargo is not on PATH: the Rust SDK conformance suite needs a Rust toolchain (https://rustup.rs)" >&2
  exit 1
fi
key=$(sha256sum "$here/Cargo.lock" | cut -c1-16)
export CARGO_TARGET_DIR="${XDG_CACHE_HOME:-$HOME/.cache}/breakwater/rust-sdk-$key"
# The scenarios start the embedded server from this checkout, wherever the build is cached.
BREAKWATER_ROOT="$(cd "$here/../.." && pwd)"
export BREAKWATER_ROOT
if [ "${1:-}" = "--target-dir" ]; then
  echo "$CARGO_TARGET_DIR"
  exit 0
fi
cd "$here"
exec cargo "$@"
