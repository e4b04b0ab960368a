"""Redrive through the official SDK: `Client.redrive_workflow` at its defaults against a run that failed
on a non-retryable activity, after the fix is deployed. The real server (server@11d35b7 routes/api.php)
routes no `…/runs/{runId}/redrive` and the engine (workflow@8dc90d64 src/V2) has no redrive, so the
SDK gets Laravel's unrouted 404 and nothing moves: no continuation, no history, no activity run again
(lib/dw/fixtures/redrive.md). The embedded server answers the same; this proves what the SDK makes of it."""

from __future__ import annotations

import asyncio

import pytest
from conftest import EmbeddedServer
from sdk_support import closed, history, new_id, running_worker, sdk_client, types, wait_history
from durable_workflow import activity, workflow
from durable_workflow.errors import NonRetryableError, ServerError

#: How often each activity ran, and whether the charge's fix is deployed.
EXECUTIONS = {"reserve": 0, "charge": 0}
FIX = {"deployed": False}


@activity.defn(name="conformance.redrive.reserve")
def reserve(order: str) -> str:
    EXECUTIONS["reserve"] += 1
    return f"reserved {order}"


@activity.defn(name="conformance.redrive.charge")
def charge(order: str) -> str:
    EXECUTIONS["charge"] += 1
    if not FIX["deployed"]:
        raise NonRetryableError(f"charge for {order} hit the rounding bug")
    return f"charged {order}"


@workflow.defn(name="conformance.redrive")
class RedriveWorkflow:
    def run(self, ctx, order):  # noqa: ANN001, ANN201
        reserved = yield ctx.schedule_activity("conformance.redrive.reserve", [order])
        charged = yield ctx.schedule_activity("conformance.redrive.charge", [order])
        return [reserved, charged]


def test_redrive_of_a_failed_run_is_the_real_servers_unrouted_404(server: EmbeddedServer) -> None:
    async def scenario() -> None:
        async with sdk_client(server) as client:
            queue, wid = new_id("q"), new_id("redrive-order")
            handle = await client.start_workflow(workflow_type="conformance.redrive", task_queue=queue, workflow_id=wid, input=["A-7"])
            async with running_worker(client, task_queue=queue, workflows=[RedriveWorkflow], activities=[reserve, charge]):
                events = await wait_history(client, wid, handle.run_id, closed("WorkflowFailed"), what="the charge fails for good")
                assert EXECUTIONS == {"reserve": 1, "charge": 1}
                before = types(events)

                FIX["deployed"] = True
                with pytest.raises(ServerError) as refused:
                    await client.redrive_workflow(wid, handle.run_id)
                assert refused.value.status == 404
                assert refused.value.body == {
                    "message": f"The route api/workflows/{wid}/runs/{handle.run_id}/redrive could not be found.",
                    "reason": "not_found",
                }

                # Nothing was continued: one run, still failed, its history as it was, no activity run again.
                runs = await client.list_workflow_runs(wid)
                assert [run.run_id for run in runs.runs] == [handle.run_id]
                assert (await client.describe_workflow_run(wid, handle.run_id)).status == "failed"
                assert types(await history(client, wid, handle.run_id)) == before
                assert EXECUTIONS == {"reserve": 1, "charge": 1}

    asyncio.run(scenario())
