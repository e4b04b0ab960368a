"""The SDK's own start-up checks against the embedded server's cluster/info, and what it refuses."""

from __future__ import annotations

import asyncio
import importlib.metadata

import pytest
from conftest import EmbeddedServer
from sdk_support import new_id, running_worker, sdk_client
from durable_workflow import Worker, workflow
from durable_workflow.errors import ServerError
from durable_workflow.worker import _validate_server_compatibility


@workflow.defn(name="conformance.noop")
class NoopWorkflow:
    def run(self, ctx):  # noqa: ANN001, ANN201
        return "ok"
        yield  # pragma: no cover - makes run a generator, as the SDK's workflows are


def test_pinned_sdk_is_installed() -> None:
    # The suite is about one exact release; a different one in the venv is a setup error, not a pass.
    assert importlib.metadata.version("durable-workflow") == "2.12.0"


def test_cluster_info_passes_the_sdk_compatibility_check(server: EmbeddedServer) -> None:
    async def scenario() -> None:
        async with sdk_client(server) as client:
            info = await client.get_cluster_info()
        # The SDK's own fail-closed check (control plane, request contract, worker protocol,
        # auth composition) — raises on any mismatch.
        _validate_server_compatibility(info)
        assert info["worker_protocol"]["version"] == "1.20"
        caps = info["worker_protocol"]["server_capabilities"]
        # Advertised only as implemented: query tasks and their claim observation (test_queries.py),
        # cooperative cancellation (test_cancellation.py), none of the rest of what 1.20 adds (said
        # false, so the SDK refuses those features up front), no fenced deregistration, no sticky execution.
        assert caps["query_tasks"] is True
        assert caps["query_task_authority"] is True
        assert caps["cooperative_cancellation"] is True
        for added_by_1_20 in (
            "nexus_cooperative_cancellation", "prepared_local_activities", "prepared_local_activity_groups",
        ):
            assert caps[added_by_1_20] is False
        assert caps["prepared_local_activity_cancellation_policies"] == []
        for absent in ("worker_deregistration_fencing", "sticky_execution", "update_validation_tasks"):
            assert absent not in caps
        negotiation = info["surface_stability_contract"]["surface_families"]["worker_protocol"]["negotiation"]
        assert negotiation["request_header_rule"] == "same_major_and_minor_less_than_or_equal_to_advertised"
        assert negotiation["accepted_request_versions_by_default"][-1] == "1.20"
        assert info["client_compatibility"]["clients"]["sdk-python"]["supported_versions"] == ">=2.12,<2.13"

    asyncio.run(scenario())


def test_sdk_at_its_default_protocol_runs_a_workflow(server: EmbeddedServer) -> None:
    """No knob: the SDK sends 1.20, accepts the advertisement and a workflow completes."""

    async def scenario() -> None:
        async with sdk_client(server) as client:
            queue = new_id("q")
            workflow_id = new_id("wf")
            handle = await client.start_workflow(
                workflow_type="conformance.noop", task_queue=queue, workflow_id=workflow_id,
            )
            async with running_worker(client, task_queue=queue, workflows=[NoopWorkflow]):
                assert await client.get_result(handle, timeout=30) == "ok"

    asyncio.run(scenario())


def test_sdk_at_protocol_1_19_still_runs_a_workflow(server: EmbeddedServer, monkeypatch: pytest.MonkeyPatch) -> None:
    """The SDK's documented fallback: 1.19 is within "same major, minor ≤ advertised"."""
    monkeypatch.setenv("DURABLE_WORKFLOW_WORKER_PROTOCOL_VERSION", "1.19")

    async def scenario() -> None:
        async with sdk_client(server) as client:
            info = await client.get_cluster_info()
            _validate_server_compatibility(info)
            queue = new_id("q")
            handle = await client.start_workflow(
                workflow_type="conformance.noop", task_queue=queue, workflow_id=new_id("wf"),
            )
            async with running_worker(client, task_queue=queue, workflows=[NoopWorkflow]):
                assert await client.get_result(handle, timeout=30) == "ok"

    asyncio.run(scenario())


def test_sdk_refuses_a_nexus_cooperative_cancellation_worker_up_front(server: EmbeddedServer) -> None:
    """1.20's Nexus cooperative cancellation is advertised false: the SDK refuses the feature, not the server."""

    async def scenario() -> None:
        async with sdk_client(server) as client:
            worker = Worker(
                client, task_queue=new_id("q"), workflows=[NoopWorkflow],
                capabilities=["cooperative_cancellation", "nexus_cooperative_cancellation"],
            )
            with pytest.raises(RuntimeError, match="nexus_cooperative_cancellation_not_supported"):
                await worker.run_until(workflow_id="never-started", timeout=5)

    asyncio.run(scenario())


def test_worker_plane_refuses_a_newer_minor_and_another_major_over_http(
    server: EmbeddedServer, monkeypatch: pytest.MonkeyPatch,
) -> None:
    async def scenario() -> None:
        async with sdk_client(server) as client:
            for version in ("1.21", "2.0"):
                monkeypatch.setenv("DURABLE_WORKFLOW_WORKER_PROTOCOL_VERSION", version)
                with pytest.raises(ServerError) as refused:
                    await client.register_worker(worker_id=new_id("w"), task_queue="q", capability_manifest={})
                assert refused.value.status == 400
                assert refused.value.body["reason"] == "unsupported_protocol_version"
                assert refused.value.body["supported_version"] == "1.20"
                assert refused.value.body["requested_version"] == version

    asyncio.run(scenario())


def test_worker_registers_and_deregisters(server: EmbeddedServer) -> None:
    async def scenario() -> None:
        async with sdk_client(server) as client:
            queue = new_id("q")
            async with running_worker(client, task_queue=queue, workflows=[NoopWorkflow]) as worker:
                # The worker is visible to the control plane while it runs...
                for _ in range(100):
                    listed = await client.list_workers(task_queue=queue)
                    if any(w.worker_id == worker.worker_id for w in listed.workers):
                        break
                    await asyncio.sleep(0.05)
                else:
                    raise AssertionError("the running SDK worker never appeared in the worker list")
                worker_id = worker.worker_id
            # ...and gone once it stopped: it deregistered with DELETE /api/worker/registrations/{id}.
            listed = await client.list_workers(task_queue=queue)
            assert all(w.worker_id != worker_id for w in listed.workers)

    asyncio.run(scenario())
