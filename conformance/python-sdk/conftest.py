"""The embedded server as a real child process for the official-SDK conformance suite.

One server per session: `node --import tsx server/main.ts --fresh` on a fresh SQLite file in a temp
dir, port 0 (the server prints the port it got), role tokens from the environment. The SDK talks to
it over HTTP exactly as it talks to a real Durable Workflow server. The process is stopped (SIGTERM,
then SIGKILL) when the session ends, whatever happened.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

# The suite runs sdk-python 2.12.0 at its defaults (worker protocol 1.20, the embedded server's own
# advertisement: docs/decisions/0049-worker-protocol-1-20-negotiated.md); an inherited knob would
# quietly test another level, so it is cleared. test_handshake.py sets 1.19 for its one 1.19 test.
os.environ.pop("DURABLE_WORKFLOW_WORKER_PROTOCOL_VERSION", None)

ROOT = Path(__file__).resolve().parents[2]
WORKER_TOKEN = "conformance-worker-token"
OPERATOR_TOKEN = "conformance-operator-token"
ADMIN_TOKEN = "conformance-admin-token"


@dataclass
class EmbeddedServer:
    url: str
    data_file: Path
    output: list[str]


def _start_server(data_dir: Path) -> tuple[subprocess.Popen[str], EmbeddedServer]:
    node = shutil.which("node")
    if node is None:
        raise RuntimeError("node is not on PATH: the conformance suite cannot start the embedded server")
    data_file = data_dir / "conformance.db"
    env = {
        **os.environ,
        "DW_EMBEDDED_DATA": str(data_file),
        "DW_EMBEDDED_PORT": "0",
        "DW_WORKER_TOKEN": WORKER_TOKEN,
        "DW_OPERATOR_TOKEN": OPERATOR_TOKEN,
        "DW_ADMIN_TOKEN": ADMIN_TOKEN,
        # Runs must only move because the SDK moved them.
        "DW_AUTO_REPAIR": "0",
    }
    for inherited in ("DW_AUTH_TOKEN", "DW_AUTH_DRIVER", "DW_DEFAULT_NAMESPACE"):
        env.pop(inherited, None)
    proc = subprocess.Popen(
        [node, "--import", "tsx", "server/main.ts", "--fresh"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    output: list[str] = []
    found = threading.Event()
    url: list[str] = []

    def drain() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            output.append(line.rstrip("\n"))
            match = re.search(r"listening on (http://127\.0\.0\.1:\d+)", line)
            if match and not url:
                url.append(match.group(1))
                found.set()
        found.set()

    threading.Thread(target=drain, daemon=True).start()
    if not found.wait(90) or not url:
        _stop(proc)
        raise RuntimeError("embedded server did not start:\n" + "\n".join(output[-40:]))
    return proc, EmbeddedServer(url=url[0], data_file=data_file, output=output)


def _stop(proc: subprocess.Popen[str]) -> None:
    if proc.poll() is not None:
        return
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=5)


@pytest.fixture(scope="session")
def server() -> EmbeddedServer:
    data_dir = Path(tempfile.mkdtemp(prefix="bw-python-sdk-"))
    proc, info = _start_server(data_dir)
    started = time.monotonic()
    try:
        yield info
    finally:
        _stop(proc)
        shutil.rmtree(data_dir, ignore_errors=True)
        print(f"\nembedded server stopped after {time.monotonic() - started:.1f}s")
