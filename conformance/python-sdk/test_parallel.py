"""Parallel activities: a workflow yields a list of commands (the SDK's parallel group)."""

from __future__ import annotations

import asyncio

from conftest import EmbeddedServer
from sdk_support import assert_replays, closed, new_id, of_type, running_worker, sdk_client, types, wait_history
from durable_workflow import activity, workflow


@activity.defn(name="conformance.square")
def square(n: int) -> int:
    return n * n


@workflow.defn(name="conformance.fan-out")
class FanOutWorkflow:
    def run(self, ctx, numbers):  # noqa: ANN001, ANN201
        squares = yield [ctx.schedule_activity("conformance.square", [n]) for n in numbers]
        return {"sum": sum(squares)}


def test_parallel_activities(server: EmbeddedServer) -> None:
    async def scenario() -> None:
        async with sdk_client(server) as client:
            queue, wid = new_id("q"), new_id("fan-out")
            handle = await client.start_workflow(workflow_type="conformance.fan-out", task_queue=queue, workflow_id=wid, input=[[1, 2, 3]])
            async with running_worker(client, task_queue=queue, workflows=[FanOutWorkflow], activities=[square]):
                events = await wait_history(client, wid, handle.run_id, closed("WorkflowCompleted"), what="all three activities complete")
            assert await client.get_result(handle) == {"sum": 14}
            scheduled = [e["payload"] for e in of_type(events, "ActivityScheduled")]
            # Scheduled once, as one group whose members carry the sequences the SDK declared
            # (group keys as in the engine's HistoryEventPayloadContract.php@8dc90d64).
            assert len(scheduled) == 3
            assert len({s["parallel_group_id"] for s in scheduled}) == 1
            assert [s["parallel_group_index"] for s in scheduled] == [0, 1, 2]
            assert all(s["parallel_group_size"] == 3 and s["parallel_group_kind"] == "activity" for s in scheduled)
            assert [s["sequence"] for s in scheduled] == [s["parallel_group_base_sequence"] + s["parallel_group_index"] for s in scheduled]
            completed = [e["payload"] for e in of_type(events, "ActivityCompleted")]
            assert len(completed) == 3
            assert all(c["parallel_group_id"] == scheduled[0]["parallel_group_id"] for c in completed)
            # The workflow resumed once, after the last member: one completion with the result.
            assert types(events)[-1] == "WorkflowCompleted"
            assert_replays(FanOutWorkflow, events, [[1, 2, 3]], {"sum": 14})

    asyncio.run(scenario())
