"""Cooperative cancellation through the official SDK: `Client.request_workflow_cancellation` at its
defaults (`WorkflowHandle.request_cancellation`) and a worker that declares the
`cooperative_cancellation` capability, against the embedded server. The server records
`CooperativeCancellationRequested` and hands the request to the next claim; the worker delivers it
at the timer the workflow waits on (`CooperativeCancellationDelivered`), where the workflow sees
`WorkflowCancelled`, cleans up, and the run closes `cancelled`. A workflow that shields itself is
closed `cancelled` when the cleanup deadline passes. Shapes: sdk-python 2.12.0 client.py,
_cooperative_cancellation.py; the engine's CooperativeCancellationDelivery.php (workflow@0ef75d3)."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

import pytest
from conftest import EmbeddedServer
from sdk_support import closed, history, new_id, of_type, running_worker, sdk_client, types, wait_history
from durable_workflow import Client, Worker, activity, serializer, workflow
from durable_workflow.errors import ServerError, WorkflowCancelled

@activity.defn(name="conformance.release-hold")
async def release_hold(request_id: str) -> str:
    return f"released for {request_id}"


@workflow.defn(name="conformance.cooperative-cleanup")
class CleanupWorkflow:
    def run(self, ctx):  # noqa: ANN001, ANN201
        try:
            yield ctx.start_timer(300)
        except WorkflowCancelled as error:
            # Cleanup runs shielded, so the request cannot interrupt it a second time.
            with ctx.cancellation_shield():
                receipt = yield ctx.schedule_activity("conformance.release-hold", [error.request_id])
            return receipt
        return "not cancelled"


@workflow.defn(name="conformance.cooperative-ignore")
class IgnoringWorkflow:
    def run(self, ctx):  # noqa: ANN001, ANN201
        with ctx.cancellation_shield():
            yield ctx.start_timer(300)
        return "finished"


@workflow.defn(name="conformance.cooperative-quick")
class QuickWorkflow:
    def run(self, ctx):  # noqa: ANN001, ANN201
        return "done"
        yield  # a generator workflow that yields nothing


def capable_worker(client: Client, queue: str) -> contextlib.AbstractAsyncContextManager[Worker]:
    """An SDK worker that opts in to cooperative cancellation (`capabilities`), polling in the background."""
    return running_worker(
        client,
        task_queue=queue,
        workflows=[CleanupWorkflow, IgnoringWorkflow, QuickWorkflow],
        activities=[release_hold],
        capabilities=["cooperative_cancellation"],
    )


def cleanup_of(events: list[dict[str, Any]]) -> dict[str, Any]:
    return of_type(events, "WorkflowCancelled")[0]["payload"]["cancellation_cleanup"]


def test_cleanup_runs_on_the_request_and_the_run_closes_cancelled_within_the_bound(server: EmbeddedServer) -> None:
    async def scenario() -> None:
        async with sdk_client(server) as client:
            queue, wid = new_id("cc"), new_id("cleanup")
            async with capable_worker(client, queue):
                handle = await client.start_workflow(
                    workflow_type="conformance.cooperative-cleanup", task_queue=queue, workflow_id=wid,
                )
                await wait_history(client, wid, handle.run_id, closed("TimerScheduled"), what="the run waits")
                accepted = await handle.request_cancellation(reason="maintenance", cleanup_timeout_seconds=60)
                original = accepted["cancellation_request"]
                assert accepted["accepted"] is True and accepted["duplicate"] is False
                assert accepted["run_id"] == handle.run_id

                with pytest.raises(WorkflowCancelled):
                    await handle.result(timeout=30)
                again = await handle.request_cancellation(cleanup_timeout_seconds=5)
                assert again["duplicate"] is True
                assert again["cancellation_request"]["request_id"] == original["request_id"]
                assert again["cancellation_request"]["cleanup_deadline_at"] == original["cleanup_deadline_at"]

            events = await history(client, wid, handle.run_id)
            kinds = types(events)
            for kind in ("CooperativeCancellationRequested", "TimerCancelled", "CooperativeCancellationDelivered",
                         "ActivityCompleted", "WorkflowCancelled"):
                assert kinds.count(kind) == 1, kinds
            assert "TimerFired" not in kinds and "WorkflowCompleted" not in kinds
            assert kinds.index("CooperativeCancellationDelivered") < kinds.index("ActivityScheduled")
            for kind in ("CooperativeCancellationRequested", "CooperativeCancellationDelivered", "WorkflowCancelled"):
                assert of_type(events, kind)[0]["payload"]["workflow_command_id"] == original["request_id"]
            delivered = of_type(events, "CooperativeCancellationDelivered")[0]["payload"]
            assert (delivered["sequence"], delivered["call_kind"]) == (1, "timer")
            assert of_type(events, "CooperativeCancellationRequested")[0]["payload"]["reason"] == "maintenance"
            # The cleanup activity ran after the delivery, on the request's own id (a cooperative worker
            # runs it in a supervised process, so its result is read back from history).
            completed = of_type(events, "ActivityCompleted")[0]["payload"]
            released = serializer.decode(completed["result"], codec=completed.get("payload_codec") or "avro")
            assert released == f"released for {original['request_id']}"
            assert cleanup_of(events)["outcome"] == "completed"

    asyncio.run(scenario())


def test_a_workflow_that_ignores_the_request_is_closed_cancelled_at_the_deadline(server: EmbeddedServer) -> None:
    async def scenario() -> None:
        async with sdk_client(server) as client:
            queue, wid = new_id("cc"), new_id("ignore")
            async with capable_worker(client, queue):
                handle = await client.start_workflow(
                    workflow_type="conformance.cooperative-ignore", task_queue=queue, workflow_id=wid,
                )
                await wait_history(client, wid, handle.run_id, closed("TimerScheduled"), what="the run waits")
                accepted = await handle.request_cancellation(cleanup_timeout_seconds=1)
                with pytest.raises(WorkflowCancelled):
                    await handle.result(timeout=30)

            events = await history(client, wid, handle.run_id)
            kinds = types(events)
            assert "CooperativeCancellationDelivered" not in kinds
            assert kinds[-2:] == ["TimerCancelled", "WorkflowCancelled"]
            cleanup = cleanup_of(events)
            assert cleanup["outcome"] == "deadline_expired"
            assert cleanup["request_id"] == accepted["cancellation_request"]["request_id"]
            assert cleanup["cleanup_deadline_at"] == accepted["cancellation_request"]["cleanup_deadline_at"]

    asyncio.run(scenario())


def test_a_closed_run_is_refused(server: EmbeddedServer) -> None:
    async def scenario() -> None:
        async with sdk_client(server) as client:
            queue, wid = new_id("cc"), new_id("quick")
            async with capable_worker(client, queue):
                handle = await client.start_workflow(
                    workflow_type="conformance.cooperative-quick", task_queue=queue, workflow_id=wid,
                )
                assert await handle.result(timeout=30) == "done"
            with pytest.raises(ServerError) as refused:
                await handle.request_cancellation()
            assert refused.value.status == 409
            assert refused.value.body["reason"] == "run_not_active"
            assert "CooperativeCancellationRequested" not in types(await history(client, wid, handle.run_id))

    asyncio.run(scenario())
