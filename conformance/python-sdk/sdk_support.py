"""Helpers shared by the conformance scenarios: SDK clients, running SDK workers, durable history.

Everything here goes through the official SDK's public surface (`Client`, `Worker`) over HTTP; the
only direct reads are of what the server has durably recorded (history pages), so each scenario
asserts on what a real Durable Workflow server would have stored, not only on the SDK's result.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
import uuid
from collections.abc import AsyncIterator, Callable, Iterable
from typing import Any

from conftest import OPERATOR_TOKEN, WORKER_TOKEN, EmbeddedServer
from durable_workflow import Client, Worker
from durable_workflow.replay_verify import verify_replay

#: How long any durable outcome may take to appear. Generous for a loaded 2-core CI box; a
#: healthy run reaches every outcome in well under a second after its timers / timeouts are due.
DEADLINE_SECONDS = 30.0


#: Every run whose durable history a scenario read, in order: test_zz_export_bundles.py exports each
#: one and hands the bundle to the SDK's offline verifier.
SDK_MADE_RUNS: list[tuple[str, str]] = []


def new_id(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:12]}"


def sdk_client(server: EmbeddedServer, *, namespace: str = "default") -> Client:
    """A client holding the operator token for the control plane and the worker token for workers."""
    return Client(server.url, control_token=OPERATOR_TOKEN, worker_token=WORKER_TOKEN, namespace=namespace)


@contextlib.asynccontextmanager
async def running_worker(
    client: Client,
    *,
    task_queue: str,
    workflows: Iterable[type] = (),
    activities: Iterable[Callable[..., Any]] = (),
    interceptors: Iterable[Any] = (),
    capabilities: Iterable[str] = (),
) -> AsyncIterator[Worker]:
    """An SDK worker polling `task_queue` in the background; stopped (and deregistered) on exit."""
    # Only a worker that opts in gets `capabilities`: the SDK's own default stays what other tests use.
    extra: dict[str, Any] = {"capabilities": list(capabilities)} if capabilities else {}
    worker = Worker(
        client,
        task_queue=task_queue,
        workflows=list(workflows),
        activities=list(activities),
        interceptors=list(interceptors),
        **extra,
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


async def history(client: Client, workflow_id: str, run_id: str) -> list[dict[str, Any]]:
    """Every durable history event of one run, following the server's page tokens."""
    events: list[dict[str, Any]] = []
    token: str | None = None
    while True:
        page = await client.get_history(workflow_id, run_id, page_size=500, next_page_token=token)
        events.extend(page["events"])
        token = page.get("next_page_token")
        if not token:
            return events


def types(events: list[dict[str, Any]]) -> list[str]:
    return [e["event_type"] for e in events]


def of_type(events: list[dict[str, Any]], event_type: str) -> list[dict[str, Any]]:
    return [e for e in events if e["event_type"] == event_type]


async def wait_history(
    client: Client,
    workflow_id: str,
    run_id: str,
    until: Callable[[list[dict[str, Any]]], bool],
    *,
    what: str,
    deadline: float = DEADLINE_SECONDS,
) -> list[dict[str, Any]]:
    """Polls the run's durable history until `until(events)` holds; fails naming `what` at the deadline."""
    end = time.monotonic() + deadline
    events: list[dict[str, Any]] = []
    while time.monotonic() < end:
        events = await history(client, workflow_id, run_id)
        if until(events):
            if (workflow_id, run_id) not in SDK_MADE_RUNS:
                SDK_MADE_RUNS.append((workflow_id, run_id))
            return events
        await asyncio.sleep(0.1)
    raise AssertionError(f"{what}: not in durable history within {deadline}s; history was {types(events)}")


def forget_run(workflow_id: str, run_id: str) -> None:
    """A run a scenario removed on purpose (its namespace deleted, its history pruned) has no bundle to export."""
    if (workflow_id, run_id) in SDK_MADE_RUNS:
        SDK_MADE_RUNS.remove((workflow_id, run_id))


def closed(event_type: str) -> Callable[[list[dict[str, Any]]], bool]:
    return lambda events: event_type in types(events)


def assert_replays(workflow_cls: type, events: list[dict[str, Any]], start_input: list[Any], result: Any = None, *, completed: bool = True) -> None:
    """The SDK's offline replay verifier replays the server's history of an SDK-made run without drift."""
    expected = {"command_type": "CompleteWorkflow", "result": result} if completed else None
    report = verify_replay(workflow_cls, events, start_input=start_input, expected=expected)
    assert report.status == "replayed", report.to_dict()
