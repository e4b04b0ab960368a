"""Makes SDK runs for the console's e2e spec (e2e/python-sdk.spec.ts) with the official SDK.

Reads DW_URL, DW_WORKER_TOKEN, DW_CONTROL_TOKEN and RUN_SUFFIX from the environment, starts a
retried run and a non-retryable run with the SDK client, serves them with an SDK worker until both
are closed, and prints {"retried": [workflow_id, run_id], "refused": [...]} as one JSON line.
Idempotent per RUN_SUFFIX: a workflow id that already exists is reused, not started again. The ids
avoid the words other e2e specs search for (runs.spec.ts expects one run matching "retried").
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from durable_workflow import Client, Worker  # noqa: E402
from durable_workflow.errors import WorkflowAlreadyStarted  # noqa: E402
from test_activities import NonRetryableWorkflow, RetryBackoffWorkflow, flaky, refuse_by_type  # noqa: E402

QUEUE = "e2e-python-sdk"


async def main() -> None:
    suffix = os.environ.get("RUN_SUFFIX", "1")
    async with Client(os.environ["DW_URL"], control_token=os.environ["DW_CONTROL_TOKEN"], worker_token=os.environ["DW_WORKER_TOKEN"]) as client:
        wanted = {
            "retried": (f"py-sdk.backoff.{suffix}", "conformance.retry-backoff", [3]),
            "refused": (f"py-sdk.type-refused.{suffix}", "conformance.non-retryable", ["conformance.refuse-by-type"]),
        }
        for workflow_id, workflow_type, args in wanted.values():
            try:
                await client.start_workflow(workflow_type=workflow_type, task_queue=QUEUE, workflow_id=workflow_id, input=args)
            except WorkflowAlreadyStarted:
                pass
        worker = Worker(client, task_queue=QUEUE, workflows=[RetryBackoffWorkflow, NonRetryableWorkflow], activities=[flaky, refuse_by_type], poll_timeout=2.0)
        task = asyncio.create_task(worker.run())
        out: dict[str, list[str]] = {}
        try:
            for key, (workflow_id, _, _) in wanted.items():
                handle = client.get_workflow_handle(workflow_id)
                await client.get_result(handle, timeout=60)
                out[key] = [workflow_id, (await client.describe_workflow(workflow_id)).run_id or ""]
        finally:
            await worker.stop()
            await asyncio.wait_for(task, timeout=15)
    print(json.dumps(out))


asyncio.run(main())
