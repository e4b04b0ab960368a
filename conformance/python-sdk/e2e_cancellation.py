"""Serves runs for the console's e2e spec e2e/run-request-cancellation.spec.ts with the official SDK.

Reads DW_URL, DW_WORKER_TOKEN, DW_CONTROL_TOKEN and RUN_SUFFIX from the environment. Starts, with
the SDK client, runs that an SDK worker opting in to cooperative cancellation (`capabilities`)
serves: two that clean up when told (one for the operator's request, one left open for the viewer
and read-only checks), one that shields itself (closed at the cleanup deadline) and one waiting on a
condition (which the server cannot reach, so it refuses the request). Prints
{"cleanup": [workflow_id, run_id], "untouched": [...], "shielded": [...], "condition": [...]} as one
JSON line once every run waits, then serves until stdin closes or SIGTERM; the workflows are
test_cancellation.py's.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from durable_workflow import Client, Worker, workflow  # noqa: E402
from sdk_support import closed, wait_history  # noqa: E402
from test_cancellation import CleanupWorkflow, IgnoringWorkflow, release_hold  # noqa: E402

QUEUE = "e2e-cooperative-cancellation"


@workflow.defn(name="conformance.e2e-condition-wait")
class ConditionWaitWorkflow:
    def run(self, ctx):  # noqa: ANN001, ANN201
        yield ctx.wait_condition(lambda: False, key="never")
        return "never"


async def main() -> None:
    suffix = os.environ.get("RUN_SUFFIX", "1")
    wanted = {
        "cleanup": ("conformance.cooperative-cleanup", "TimerScheduled"),
        "untouched": ("conformance.cooperative-cleanup", "TimerScheduled"),
        "shielded": ("conformance.cooperative-ignore", "TimerScheduled"),
        "condition": ("conformance.e2e-condition-wait", "ConditionWaitOpened"),
    }
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGTERM, stop.set)
    loop.add_reader(sys.stdin.fileno(), lambda: sys.stdin.read(1) or stop.set())
    async with Client(os.environ["DW_URL"], control_token=os.environ["DW_CONTROL_TOKEN"], worker_token=os.environ["DW_WORKER_TOKEN"]) as client:
        worker = Worker(
            client,
            task_queue=QUEUE,
            workflows=[CleanupWorkflow, IgnoringWorkflow, ConditionWaitWorkflow],
            activities=[release_hold],
            capabilities=["cooperative_cancellation"],
            poll_timeout=2.0,
            shutdown_timeout=10.0,
        )
        task = asyncio.create_task(worker.run())
        try:
            out: dict[str, list[str]] = {}
            for key, (workflow_type, waiting_event) in wanted.items():
                workflow_id = f"py-cc.{key}.{suffix}"
                handle = await client.start_workflow(workflow_type=workflow_type, task_queue=QUEUE, workflow_id=workflow_id)
                await wait_history(client, workflow_id, handle.run_id, closed(waiting_event), what=f"{key} waits")
                out[key] = [workflow_id, handle.run_id]
            print(json.dumps(out), flush=True)
            await stop.wait()
        finally:
            await worker.stop()
            await asyncio.wait_for(task, timeout=15)


# The guard matters: a cooperative worker runs activities in spawned processes, which import this
# file again as `__mp_main__` and must not start a second set of runs.
if __name__ == "__main__":
    asyncio.run(main())
