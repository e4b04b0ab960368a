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
        assert info["worker_protocol"]["version"] == "1.19"
        caps = info["worker_protocol"]["server_capabilities"]
        # Advertised only as implemented: no query tasks, no 1.20 cooperative cancellation, no
        # fenced deregistration, no sticky execution.
        assert caps["query_tasks"] is False
        assert caps["cooperative_cancellation"] is False
        for absent in ("worker_deregistration_fencing", "sticky_execution", "update_validation_tasks"):
            assert absent not in caps
        assert info["client_compatibility"]["clients"]["sdk-python"]["supported_versions"] == ">=2.12,<2.13"

    asyncio.run(scenario())


def test_sdk_default_protocol_1_20_is_refused_by_the_sdk_itself(server: EmbeddedServer, monkeypatch: pytest.MonkeyPatch) -> None:
    """The server does not claim 1.20: an SDK left at its default refuses to register."""

    async def scenario() -> None:
        async with sdk_client(server) as client:
            info = await client.get_cluster_info()
            monkeypatch.setenv("DURABLE_WORKFLOW_WORKER_PROTOCOL_VERSION", "1.20")
            with pytest.raises(RuntimeError, match=r"incompatible worker_protocol.version '1.19'"):
                _validate_server_compatibility(info)
            worker = Worker(client, task_queue=new_id("q"), workflows=[NoopWorkflow])
            with pytest.raises(RuntimeError, match="Server compatibility error"):
                await worker.run_until(workflow_id="never-started", timeout=5)

    asyncio.run(scenario())


def test_worker_plane_refuses_other_protocol_versions_over_http(server: EmbeddedServer, monkeypatch: pytest.MonkeyPatch) -> None:
    async def scenario() -> None:
        async with sdk_client(server) as client:
            monkeypatch.setenv("DURABLE_WORKFLOW_WORKER_PROTOCOL_VERSION", "1.20")
            with pytest.raises(ServerError) as refused:
                await client.register_worker(worker_id=new_id("w"), task_queue="q", capability_manifest={})
            assert refused.value.status == 400
            assert refused.value.body["reason"] == "unsupported_protocol_version"
            assert refused.value.body["supported_version"] == "1.19"
            assert refused.value.body["requested_version"] == "1.20"

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
