"""Workflow queries through the official SDK: `@workflow.query` handlers on a real SDK worker,
`Client.query_workflow` from the SDK client, against the embedded server's worker-routed query
tasks (the real server's WorkflowQueryTaskBroker, server@11d35b7). The worker answers by replaying
the run's history, so a closed run is queried too; a query never adds to durable history."""

from __future__ import annotations

import asyncio
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import EmbeddedServer, _start_server, _stop
from sdk_support import closed, history, new_id, running_worker, sdk_client, types, wait_history
from durable_workflow import workflow
from durable_workflow.errors import QueryFailed


@workflow.defn(name="conformance.queryable")
class QueryableWorkflow:
    def __init__(self) -> None:
        self.stage = "new"
        self.items: list[str] = []

    @workflow.signal("add")
    def on_add(self, item: str) -> None:
        self.items.append(item)

    @workflow.query("status")
    def status(self) -> dict:
        return {"stage": self.stage, "items": list(self.items)}

    @workflow.query("item_at")
    def item_at(self, index: int) -> str:
        return self.items[index]

    def run(self, ctx, who):  # noqa: ANN001, ANN201
        self.stage = f"waiting for {who}"
        yield ctx.wait_condition(lambda: len(self.items) >= 2, key="two-items")
        self.stage = "done"
        return list(self.items)


def test_query_handlers_answer_from_replayed_state(server: EmbeddedServer) -> None:
    async def scenario() -> None:
        async with sdk_client(server) as client:
            queue, wid = new_id("q"), new_id("queryable")
            handle = await client.start_workflow(
                workflow_type="conformance.queryable", task_queue=queue, workflow_id=wid, input=["Ada"]
            )
            async with running_worker(client, task_queue=queue, workflows=[QueryableWorkflow]):
                await wait_history(client, wid, handle.run_id, closed("ConditionWaitOpened"), what="the run parks")
                before = types(await history(client, wid, handle.run_id))

                open_answer = await client.query_workflow(wid, "status")
                assert open_answer["result"] == {"stage": "waiting for Ada", "items": []}
                assert open_answer["query_name"] == "status"
                assert open_answer["run_id"] == handle.run_id
                assert open_answer["control_plane"]["operation"] == "query"
                # Queries are read-only: nothing was appended to the run's history.
                assert types(await history(client, wid, handle.run_id)) == before

                await client.signal_workflow(wid, "add", args=["apples"])
                await client.signal_workflow(wid, "add", args=["pears"])
                await wait_history(client, wid, handle.run_id, closed("WorkflowCompleted"), what="two signals finish the run")

                # A closed run is still answered by its worker, replaying the whole history.
                closed_answer = await handle.query("status")
                assert closed_answer["result"] == {"stage": "done", "items": ["apples", "pears"]}
                by_arg = await client.query_workflow(wid, "item_at", args=[1])
                assert by_arg["result"] == "pears"

    asyncio.run(scenario())


def test_failing_and_unknown_queries_raise_query_failed(server: EmbeddedServer) -> None:
    async def scenario() -> None:
        async with sdk_client(server) as client:
            queue, wid = new_id("q"), new_id("queryable")
            handle = await client.start_workflow(
                workflow_type="conformance.queryable", task_queue=queue, workflow_id=wid, input=["Bo"]
            )
            async with running_worker(client, task_queue=queue, workflows=[QueryableWorkflow]):
                await wait_history(client, wid, handle.run_id, closed("ConditionWaitOpened"), what="the run parks")
                # The handler raises IndexError: the worker fails the task, the caller gets 409.
                with pytest.raises(QueryFailed) as failed:
                    await client.query_workflow(wid, "item_at", args=[5])
                assert failed.value.status == 409
                assert failed.value.reason == "query_rejected"
                assert "list index out of range" in str(failed.value)
                # No such handler: the worker says so and the caller gets 404.
                with pytest.raises(QueryFailed) as unknown:
                    await client.query_workflow(wid, "no_such_query")
                assert unknown.value.status == 404
                assert unknown.value.reason == "rejected_unknown_query"
            # The worker stopped and deregistered: no worker takes the query, and the server's own
            # engine cannot run a Python workflow, so the name is not a query it knows.
            with pytest.raises(QueryFailed) as nobody:
                await client.query_workflow(wid, "status")
            assert nobody.value.status == 404
            assert nobody.value.reason == "query_not_found"

    asyncio.run(scenario())


QUERY_TIMEOUT_SECONDS = 2


@pytest.fixture(scope="module")
def short_query_server() -> Iterator[EmbeddedServer]:
    """A second embedded server whose query timeout (DW_QUERY_TASK_TIMEOUT) is 2 s, not 30."""
    data_dir = Path(tempfile.mkdtemp(prefix="bw-python-sdk-query-"))
    previous = os.environ.get("DW_QUERY_TASK_TIMEOUT")
    os.environ["DW_QUERY_TASK_TIMEOUT"] = str(QUERY_TIMEOUT_SECONDS)
    try:
        proc, info = _start_server(data_dir)
    finally:
        if previous is None:
            os.environ.pop("DW_QUERY_TASK_TIMEOUT", None)
        else:
            os.environ["DW_QUERY_TASK_TIMEOUT"] = previous
    try:
        yield info
    finally:
        _stop(proc)
        shutil.rmtree(data_dir, ignore_errors=True)


def test_a_registered_worker_that_never_polls_times_out(short_query_server: EmbeddedServer) -> None:
    async def scenario() -> None:
        async with sdk_client(short_query_server) as client:
            queue, wid = new_id("q"), new_id("queryable")
            await client.start_workflow(workflow_type="conformance.queryable", task_queue=queue, workflow_id=wid, input=["Cy"])
            # A worker that registered (fresh) and then hung: the query becomes a task nobody claims.
            await client.register_worker(
                worker_id=new_id("hung"),
                task_queue=queue,
                supported_workflow_types=["conformance.queryable"],
                capability_manifest={},
            )
            with pytest.raises(QueryFailed) as timed_out:
                await client.query_workflow(wid, "status")
            assert timed_out.value.status == 504
            assert timed_out.value.reason == "query_worker_timeout"
            assert str(timed_out.value) == "Timed out waiting for a worker to execute the workflow query."

    asyncio.run(scenario())
