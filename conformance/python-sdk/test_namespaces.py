"""Namespaces, the storage probe and history retention through the official SDK's client at its defaults:
`create_namespace`, `describe_namespace`, `list_namespaces`, `update_namespace`,
`set_namespace_external_storage`, `test_external_storage`, `delete_namespace`, `retention_status` and
`retention_pass`. The shapes are the real server's (server@11d35b7 NamespaceController.php,
StorageController.php, SystemController.php; the newer `destroy` with NamespaceLifecycleCleanup.php@45db1e9;
lib/dw/fixtures/namespace-*.md). The server runs on the real clock, so retention is proven here through a
named pass (the real pass prunes any named closed run, whatever its age); the cutoff itself is proven on
the fake clock in server/http/control-plane/namespaces.test.ts."""

from __future__ import annotations

import asyncio

import pytest
from conftest import ADMIN_TOKEN, WORKER_TOKEN, EmbeddedServer
from sdk_support import closed, forget_run, new_id, running_worker, sdk_client, wait_history
from durable_workflow import Client, workflow
from durable_workflow.errors import InvalidArgument, NamespaceNotFound, ServerError


def admin_client(server: EmbeddedServer, namespace: str = "default") -> Client:
    return Client(server.url, control_token=ADMIN_TOKEN, worker_token=WORKER_TOKEN, namespace=namespace)


@workflow.defn(name="conformance.namespaces.hello")
class HelloWorkflow:
    def run(self, ctx, name):  # noqa: ANN001, ANN201
        return f"hello {name}"
        yield  # noqa: B901 - a generator workflow with no commands


def test_namespace_lifecycle_through_the_sdk(server: EmbeddedServer) -> None:
    async def scenario() -> None:
        name = new_id("billing").lower()
        async with admin_client(server) as admin:
            created = await admin.create_namespace(name.upper(), description="Invoices", retention_days=14)
            assert (created.name, created.description, created.retention_days, created.status) == (name, "Invoices", 14, "active")
            assert created.created_at is not None and created.updated_at is None

            with pytest.raises(ServerError) as dup:
                await admin.create_namespace(name)
            assert dup.value.status == 409 and dup.value.body["reason"] == "namespace_already_exists"
            with pytest.raises(InvalidArgument) as bad:
                await admin.create_namespace("not a name")
            assert bad.value.errors is not None and "name" in bad.value.errors

            listed = await admin.list_namespaces()
            assert {"default", name} <= {ns.name for ns in listed.namespaces}

            updated = await admin.update_namespace(name, retention_days=3)
            assert (updated.description, updated.retention_days) == ("Invoices", 3)
            assert (await admin.describe_namespace(name)).retention_days == 3

            stored = await admin.set_namespace_external_storage(name, driver="local", threshold_bytes=4096)
            assert stored.external_payload_storage is not None
            assert stored.external_payload_storage.driver == "local"

        async with admin_client(server, name) as admin_in_ns:
            probe = await admin_in_ns.test_external_storage(small_payload_bytes=32, large_payload_bytes=70_000)
            assert (probe.status, probe.namespace, probe.driver) == ("passed", name, "local")
            assert probe.small_payload is not None and probe.small_payload.bytes == 32
            assert probe.large_payload is not None and str(probe.large_payload.reference_uri).startswith("file://")

            # A run in the namespace, served by an SDK worker there, is deleted with it.
            handle = await admin_in_ns.start_workflow(workflow_type="conformance.namespaces.hello", task_queue="ns-q", workflow_id=new_id("hello"), input=["ns"])
            async with running_worker(admin_in_ns, task_queue="ns-q", workflows=[HelloWorkflow]):
                await wait_history(admin_in_ns, handle.workflow_id, handle.run_id, closed("WorkflowCompleted"), what="the run completes")

        async with admin_client(server) as admin:
            deleted = await admin.delete_namespace(name)
            assert deleted.name == name and deleted.status == "deleted"
            assert deleted.deleted is not None and deleted.deleted.get("workflow_runs") == 1
            forget_run(handle.workflow_id, handle.run_id)
            with pytest.raises(NamespaceNotFound):
                await admin.describe_namespace(name)

    asyncio.run(scenario())


def test_namespace_writes_are_refused_to_an_operator(server: EmbeddedServer) -> None:
    async def scenario() -> None:
        async with sdk_client(server) as operator:
            assert "default" in {ns.name for ns in (await operator.list_namespaces()).namespaces}
            for call in (
                operator.create_namespace(new_id("ops").lower()),
                operator.update_namespace("default", retention_days=2),
                operator.delete_namespace("default"),
                operator.retention_status(),
                operator.retention_pass(),
            ):
                with pytest.raises(ServerError) as refused:
                    await call
                assert refused.value.status == 403
        async with admin_client(server) as admin:
            assert (await admin.describe_namespace("default")).retention_days == 30

    asyncio.run(scenario())


def test_retention_status_and_a_named_pass(server: EmbeddedServer) -> None:
    async def scenario() -> None:
        name = new_id("ret").lower()
        async with admin_client(server) as admin:
            await admin.create_namespace(name, retention_days=1)
        async with admin_client(server, name) as admin:
            status = await admin.retention_status()
            assert status["namespace"] == name and status["retention_days"] == 1
            assert status["expired_run_count"] == 0 and status["scan_pressure"] is False

            done = await admin.start_workflow(workflow_type="conformance.namespaces.hello", task_queue="ret-q", workflow_id=new_id("done"), input=["a"])
            async with running_worker(admin, task_queue="ret-q", workflows=[HelloWorkflow]):
                await wait_history(admin, done.workflow_id, done.run_id, closed("WorkflowCompleted"), what="the run completes")
            still_open = await admin.start_workflow(workflow_type="conformance.namespaces.other", task_queue="nobody", workflow_id=new_id("open"), input=[])

            report = await admin.retention_pass(run_ids=[done.run_id, still_open.run_id])
            assert (report["processed"], report["pruned"], report["skipped"], report["failed"]) == (2, 1, 1, 0)
            pruned, skipped = report["results"]
            assert pruned["run_id"] == done.run_id and pruned["outcome"] == "pruned" and pruned["history_events_deleted"] > 0
            forget_run(done.workflow_id, done.run_id)
            assert skipped == {"run_id": still_open.run_id, "outcome": "skipped", "reason": "run_not_terminal"}
            listed = await admin.list_workflows()
            assert [w.workflow_id for w in listed.executions] == [still_open.workflow_id]

    asyncio.run(scenario())
