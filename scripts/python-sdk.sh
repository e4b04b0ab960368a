#!/usr/bin/env bash
# Creates (or reuses) .venv-sdk with the pinned official Python SDK from PyPI, so the conformance suite
# and the SDK's offline verifiers run the real thing. Idempotent: reinstalls only when the pins change.
# Prints the venv's python path on its last line.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
req=conformance/python-sdk/requirements.txt
venv=.venv-sdk
stamp="$venv/.requirements.sha256"
want=$(sha256sum "$req" | cut -d' ' -f1)
if [ ! -x "$venv/bin/python" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  python3 -m venv "$venv" >&2 || { echo "python3 -m venv failed: install Debian's python3-venv" >&2; exit 1; }
  "$venv/bin/pip" install --quiet --disable-pip-version-check -r "$req" >&2
  echo "$want" > "$stamp"
fi
echo "$PWD/$venv/bin/python"
