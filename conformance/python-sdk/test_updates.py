"""Workflow updates through the official SDK: `@workflow.update` handlers on a real SDK worker,
`Client.update_workflow` from the SDK client at its defaults, against the embedded server. The
server accepts the update (`UpdateAccepted`), the worker replays and runs the handler on a workflow
task carrying `workflow_update_id`, and its `complete_update` / `fail_update` becomes
`UpdateApplied` + `UpdateCompleted` (workflow@8dc90d64 DefaultWorkflowTaskBridge)."""

from __future__ import annotations

import asyncio

import pytest
from conftest import EmbeddedServer
from sdk_support import closed, history, new_id, of_type, running_worker, sdk_client, types, wait_history
from durable_workflow import workflow
from durable_workflow.errors import ServerError, UpdateFailed


@workflow.defn(name="conformance.updatable")
class UpdatableWorkflow:
    def __init__(self) -> None:
        self.approved: list[int] = []
        self.done = False

    @workflow.update("approve")
    def approve(self, amount: int) -> str:
        self.approved.append(amount)
        return f"approved:{amount} total:{sum(self.approved)}"

    @workflow.update("explode")
    def explode(self, why: str) -> str:
        raise ValueError(f"cannot explode: {why}")

    @workflow.signal("finish")
    def finish(self) -> None:
        self.done = True

    def run(self, ctx):  # noqa: ANN001, ANN201
        yield ctx.wait_condition(lambda: self.done, key="finish")
        return list(self.approved)


async def _parked(client, queue: str, wid: str):  # noqa: ANN001, ANN202
    handle = await client.start_workflow(workflow_type="conformance.updatable", task_queue=queue, workflow_id=wid)
    await wait_history(client, wid, handle.run_id, closed("ConditionWaitOpened"), what="the run parks")
    return handle


def test_update_completed_and_accepted_then_replayed_into_the_result(server: EmbeddedServer) -> None:
    async def scenario() -> None:
        async with sdk_client(server) as client:
            queue, wid = new_id("u"), new_id("updatable")
            async with running_worker(client, task_queue=queue, workflows=[UpdatableWorkflow]):
                handle = await _parked(client, queue, wid)

                done = await client.update_workflow(wid, "approve", args=[3], wait_for="completed", request_id="approve-1")
                assert done["update_status"] == "completed"
                assert done["outcome"] == "update_completed"
                assert done["result"] == "approved:3 total:3"
                assert done["request_id"] == "approve-1"
                assert done["control_plane"]["operation"] == "update"

                # At the defaults the client waits for acceptance only: 202, the update still open.
                accepted = await client.update_workflow(wid, "approve", args=[4])
                assert accepted["update_status"] == "accepted"
                assert accepted["wait_for"] == "accepted"
                assert accepted["request_id"].startswith("sdk-python-update-")
                await wait_history(
                    client, wid, handle.run_id,
                    lambda evs: len(of_type(evs, "UpdateCompleted")) == 2, what="the second update completes",
                )

                # The same request id again: the original receipt, not a second update.
                again = await client.update_workflow(wid, "approve", args=[3], wait_for="completed", request_id="approve-1")
                assert again["update_id"] == done["update_id"]
                assert again["command_id"] == done["command_id"]
                events = await history(client, wid, handle.run_id)
                assert len(of_type(events, "UpdateAccepted")) == 2
                # The same key for another intent is refused as UpdateFailed(request_id_conflict).
                with pytest.raises(UpdateFailed) as conflict:
                    await client.update_workflow(wid, "approve", args=[9], request_id="approve-1")
                assert conflict.value.reason == "request_id_conflict"

                applied = of_type(events, "UpdateApplied")
                assert [e["payload"]["update_name"] for e in applied] == ["approve", "approve"]
                completed = of_type(events, "UpdateCompleted")
                assert completed[0]["payload"]["update_id"] == done["update_id"]

                # The handlers' state survives replay: the workflow returns what both updates added.
                await client.signal_workflow(wid, "finish")
                await wait_history(client, wid, handle.run_id, closed("WorkflowCompleted"), what="finish ends the run")
                assert await client.get_result(handle, timeout=30) == [3, 4]

    asyncio.run(scenario())


def test_failing_handler_is_update_failed_with_the_non_retryable_marker(server: EmbeddedServer) -> None:
    async def scenario() -> None:
        async with sdk_client(server) as client:
            queue, wid = new_id("u"), new_id("updatable")
            async with running_worker(client, task_queue=queue, workflows=[UpdatableWorkflow]):
                handle = await _parked(client, queue, wid)
                with pytest.raises(UpdateFailed) as failed:
                    await client.update_workflow(wid, "explode", args=["now"], wait_for="completed")
                assert failed.value.status == 422
                assert "cannot explode: now" in str(failed.value)
                assert failed.value.body["update_status"] == "failed"
                events = await history(client, wid, handle.run_id)
                completed = of_type(events, "UpdateCompleted")[0]["payload"]
                assert completed["non_retryable"] is True
                assert completed["exception_type"] == "ValueError"
                assert completed["failure_id"] == failed.value.body["failure_id"]
                assert "UpdateApplied" not in types(events)
                # The run itself goes on: a failed update is not a failed workflow.
                await client.signal_workflow(wid, "finish")
                await wait_history(client, wid, handle.run_id, closed("WorkflowCompleted"), what="finish ends the run")

    asyncio.run(scenario())


def test_update_to_a_closed_run_is_refused_with_the_real_reason(server: EmbeddedServer) -> None:
    async def scenario() -> None:
        async with sdk_client(server) as client:
            queue, wid = new_id("u"), new_id("updatable")
            async with running_worker(client, task_queue=queue, workflows=[UpdatableWorkflow]):
                handle = await _parked(client, queue, wid)
                await client.signal_workflow(wid, "finish")
                await wait_history(client, wid, handle.run_id, closed("WorkflowCompleted"), what="finish ends the run")
            with pytest.raises(ServerError) as refused:
                await client.update_workflow(wid, "approve", args=[1], wait_for="completed")
            assert refused.value.status == 409
            assert refused.value.body["reason"] == "run_not_active"
            assert refused.value.body["outcome"] == "rejected_not_active"
            assert of_type(await history(client, wid, handle.run_id), "UpdateRejected")

    asyncio.run(scenario())
