"""The worker roster through the SDK's own client calls.

`Client.list_workers` / `describe_worker` / `deregister_worker` and the worker-plane
`register_worker` / `heartbeat_worker` against the embedded server, held to durable-workflow/server
WorkerManagementController.php after @c6de4c3 (`workerSummary`: task slots, process metrics, cadence,
`stale_after_seconds`; `destroy`, admin only by routes/api.php@11d35b7).
"""

from __future__ import annotations

import asyncio
import os

import pytest
from conftest import ADMIN_TOKEN, WORKER_TOKEN, EmbeddedServer
from sdk_support import new_id, running_worker, sdk_client
from durable_workflow import Client, workflow
from durable_workflow.errors import ServerError


def admin_client(server: EmbeddedServer) -> Client:
    return Client(server.url, control_token=ADMIN_TOKEN, worker_token=WORKER_TOKEN, namespace="default")


@workflow.defn(name="conformance.workers.noop")
class NoopRosterWorkflow:
    def run(self, ctx):  # noqa: ANN001, ANN201
        return None
        yield  # noqa: B901 - a generator workflow with no commands


def test_a_running_sdk_worker_reports_its_slots_and_process(server: EmbeddedServer) -> None:
    async def scenario() -> None:
        async with sdk_client(server) as client:
            queue = new_id("roster-q")
            async with running_worker(client, task_queue=queue, workflows=[NoopRosterWorkflow]) as worker:
                for _ in range(100):
                    listed = await client.list_workers(task_queue=queue)
                    if listed.workers:
                        break
                    await asyncio.sleep(0.05)
                assert [w.worker_id for w in listed.workers] == [worker.worker_id]
                assert listed.stale_after_seconds == 60
                described = await client.describe_worker(worker.worker_id)
                assert described.status == "active"
                assert described.runtime == "python"
                slots = described.task_slots or {}
                assert slots["workflow_capacity"] == described.max_concurrent_workflow_tasks
                assert slots["activity_capacity"] == described.max_concurrent_activity_tasks
                assert 0 <= (slots["workflow_available"] or 0) <= slots["workflow_capacity"]
                # The server records what the SDK reported about its process, as reported.
                assert (described.process_metrics or {}).get("process_id") == os.getpid()

    asyncio.run(scenario())


def test_an_admin_removes_a_dead_worker_and_an_operator_may_not(server: EmbeddedServer) -> None:
    async def scenario() -> None:
        worker_id = new_id("dead-roster")
        async with sdk_client(server) as operator, admin_client(server) as admin:
            await operator.register_worker(
                worker_id=worker_id,
                task_queue=new_id("roster-q"),
                supported_workflow_types=["conformance.workers.noop"],
                max_concurrent_workflow_tasks=3,
                capability_manifest={},
            )
            await operator.heartbeat_worker(
                worker_id=worker_id,
                task_slots={"workflow_available": 2},
                process_metrics={"memory_bytes": 1024, "host": "roster-host"},
                heartbeat_interval_seconds=20,
            )
            described = await operator.describe_worker(worker_id)
            assert described.task_slots is not None and described.task_slots["workflow_available"] == 2
            assert described.process_metrics == {"memory_bytes": 1024, "host": "roster-host"}
            assert described.heartbeat_interval_seconds == 20

            with pytest.raises(ServerError) as refused:
                await operator.deregister_worker(worker_id)
            assert refused.value.status == 403

            removed = await admin.deregister_worker(worker_id)
            assert removed == {"worker_id": worker_id, "outcome": "deregistered", "recovered_workflow_task_count": 0}
            with pytest.raises(ServerError) as gone:
                await operator.describe_worker(worker_id)
            assert gone.value.status == 404 and gone.value.reason() == "worker_not_found"
            with pytest.raises(ServerError) as again:
                await admin.deregister_worker(worker_id)
            assert again.value.status == 404 and again.value.reason() == "worker_not_found"

    asyncio.run(scenario())
