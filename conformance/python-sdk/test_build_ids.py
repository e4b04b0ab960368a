"""Worker versioning through the SDK's own client calls.

`Client.list_task_queue_build_ids` / `promote_task_queue_build_id` / `drain_task_queue_build_id` /
`resume_task_queue_build_id` at their defaults against the embedded server, with build ids that
real SDK workers registered, held to durable-workflow/server TaskQueueController and
TaskQueueBuildIdRolloutSnapshot (see lib/dw/fixtures/build-ids.md). A drained cohort's SDK worker
keeps running while the server refuses its polls, and finishes the work once resumed.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

import pytest
from conftest import EmbeddedServer
from sdk_support import DEADLINE_SECONDS, new_id, sdk_client
from durable_workflow import Client, Worker, workflow
from durable_workflow.errors import ServerError


@workflow.defn(name="conformance.build_ids.noop")
class VersionedNoopWorkflow:
    def run(self, ctx):  # noqa: ANN001, ANN201
        return "done"
        yield  # noqa: B901 - a generator workflow with no commands


@contextlib.asynccontextmanager
async def versioned_worker(client: Client, *, task_queue: str, build_id: str) -> AsyncIterator[Worker]:
    """An SDK worker that registers `build_id`, polling in the background; stopped on exit."""
    worker = Worker(
        client,
        task_queue=task_queue,
        workflows=[VersionedNoopWorkflow],
        build_id=build_id,
        poll_timeout=2.0,
        shutdown_timeout=10.0,
    )
    task = asyncio.create_task(worker.run())
    try:
        yield worker
    finally:
        await worker.stop()
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.wait_for(task, timeout=15)
        if task.done() and not task.cancelled() and task.exception() is not None:
            raise task.exception()  # type: ignore[misc]


async def cohorts_of(client: Client, queue: str, workers: int) -> dict[str | None, object]:
    """The queue's cohorts once `workers` workers have registered in them (workers register as they start)."""
    end = asyncio.get_running_loop().time() + DEADLINE_SECONDS
    while True:
        rollout = await client.list_task_queue_build_ids(queue)
        registered = sum(c.total_worker_count for c in rollout.build_ids)
        if registered >= workers or asyncio.get_running_loop().time() > end:
            return {c.build_id: c for c in rollout.build_ids}
        await asyncio.sleep(0.05)


def test_build_ids_come_from_sdk_registrations_and_roll_out_through_the_client(server: EmbeddedServer) -> None:
    async def scenario() -> None:
        async with sdk_client(server) as client:
            queue = new_id("versioned-q")
            async with versioned_worker(client, task_queue=queue, build_id="2026.12.2"):
                await client.register_worker(
                    worker_id=new_id("old-build"),
                    task_queue=queue,
                    supported_workflow_types=["conformance.build_ids.noop"],
                    build_id="2026.11.4",
                    capability_manifest={},
                )
                cohorts = await cohorts_of(client, queue, 2)
                rollout = await client.list_task_queue_build_ids(queue)
                assert rollout.task_queue == queue
                assert rollout.namespace == "default"
                assert rollout.stale_after_seconds == 60
                assert set(cohorts) == {"2026.12.2", "2026.11.4"}
                new = cohorts["2026.12.2"]
                assert new.rollout_status == "active"  # type: ignore[attr-defined]
                assert new.active_worker_count == 1  # type: ignore[attr-defined]
                assert new.runtimes == ["python"]  # type: ignore[attr-defined]
                assert new.sdk_versions and new.drain_intent == "active"  # type: ignore[attr-defined]

                drained = await client.drain_task_queue_build_id(queue, "2026.11.4")
                assert (drained.build_id, drained.drain_intent) == ("2026.11.4", "draining")
                assert drained.drained_at is not None
                again = await client.drain_task_queue_build_id(queue, "2026.11.4")
                assert again.drained_at == drained.drained_at

                promoted = await client.promote_task_queue_build_id(queue, "2026.12.2")
                assert promoted.new_start_selected is True
                assert promoted.promoted_at is not None
                assert (promoted.deployment or {}).get("state") == "promoted"

                cohorts = await cohorts_of(client, queue, 2)
                old = cohorts["2026.11.4"]
                assert old.rollout_status == "draining"  # type: ignore[attr-defined]
                assert old.draining_worker_count == 1  # type: ignore[attr-defined]
                assert cohorts["2026.12.2"].new_start_selected is True  # type: ignore[attr-defined]
                # Draining cohorts sort after active ones, as the real snapshot ranks them.
                assert [c.build_id for c in (await client.list_task_queue_build_ids(queue)).build_ids] == [
                    "2026.12.2",
                    "2026.11.4",
                ]

                resumed = await client.resume_task_queue_build_id(queue, "2026.11.4")
                assert (resumed.drain_intent, resumed.drained_at) == ("active", None)

    asyncio.run(scenario())


def test_promoting_an_unknown_build_id_is_refused_in_the_real_words(server: EmbeddedServer) -> None:
    async def scenario() -> None:
        async with sdk_client(server) as client:
            queue = new_id("versioned-q")
            with pytest.raises(ServerError) as refused:
                await client.promote_task_queue_build_id(queue, "never-deployed")
            assert refused.value.status == 409
            assert refused.value.reason() == "unknown_deployment"
            assert f"No deployment is registered for default/{queue}@never-deployed." in str(refused.value)

    asyncio.run(scenario())


def test_a_drained_sdk_worker_survives_its_refused_polls_and_finishes_once_resumed(server: EmbeddedServer) -> None:
    async def scenario() -> None:
        async with sdk_client(server) as client:
            queue = new_id("versioned-q")
            # Drained before its worker starts: the registration lands draining, every poll is refused.
            await client.drain_task_queue_build_id(queue, "2026.10.1")
            async with versioned_worker(client, task_queue=queue, build_id="2026.10.1"):
                cohorts = await cohorts_of(client, queue, 1)
                assert cohorts["2026.10.1"].draining_worker_count == 1  # type: ignore[attr-defined]
                handle = await client.start_workflow(
                    workflow_type="conformance.build_ids.noop", task_queue=queue, workflow_id=new_id("versioned")
                )
                await client.resume_task_queue_build_id(queue, "2026.10.1")
                assert await asyncio.wait_for(client.get_result(handle), timeout=DEADLINE_SECONDS) == "done"

    asyncio.run(scenario())
