"""Runs made by real SDK workers through the SDK client: start / describe / list / history,
activity retries with backoff lists, non-retryable failures, and start-to-close / heartbeat
timeouts with a late report. Every scenario reads the run's durable history back from the server
and replays it through the SDK's offline replay verifier."""

from __future__ import annotations

import asyncio
import logging
import time

import pytest

from conftest import EmbeddedServer
from sdk_support import DEADLINE_SECONDS, assert_replays, closed, history, new_id, of_type, running_worker, sdk_client, types, wait_history
from durable_workflow import activity, workflow
from durable_workflow.errors import ActivityFailed, NonRetryableError
from durable_workflow.workflow import ActivityRetryPolicy


@activity.defn(name="conformance.greet")
def greet(name: str) -> str:
    return f"hello, {name}"


@workflow.defn(name="conformance.greeter")
class GreeterWorkflow:
    def run(self, ctx, name):  # noqa: ANN001, ANN201
        greeting = yield ctx.schedule_activity("conformance.greet", [name])
        return {"greeting": greeting}


def test_start_describe_list_history(server: EmbeddedServer) -> None:
    async def scenario() -> None:
        async with sdk_client(server) as client:
            queue, wid = new_id("q"), new_id("greeter")
            handle = await client.start_workflow(
                workflow_type="conformance.greeter", task_queue=queue, workflow_id=wid, input=["world"],
                memo={"customer": "ada"}, search_attributes={"Region": "eu"},
            )
            assert handle.run_id
            async with running_worker(client, task_queue=queue, workflows=[GreeterWorkflow], activities=[greet]):
                assert await client.get_result(handle, timeout=30) == {"greeting": "hello, world"}

            described = await client.describe_workflow(wid)
            assert (described.workflow_id, described.run_id, described.workflow_type) == (wid, handle.run_id, "conformance.greeter")
            assert described.status == "completed"
            assert described.task_queue == queue
            assert described.memo == {"customer": "ada"}
            assert described.search_attributes == {"Region": "eu"}

            listed = await client.list_workflows(workflow_type="conformance.greeter")
            assert wid in [e.workflow_id for e in listed.executions]

            events = await history(client, wid, handle.run_id)
            assert types(events) == [
                "StartAccepted", "WorkflowStarted", "ActivityScheduled", "ActivityStarted", "ActivityCompleted", "WorkflowCompleted",
            ]
            started = of_type(events, "WorkflowStarted")[0]["payload"]
            assert started["workflow_type"] == "conformance.greeter"
            # Keys of the real WorkflowStarted payload (durable-workflow/workflow
            # src/V2/Support/HistoryEventPayloadContract.php@8dc90d64).
            assert (started["workflow_instance_id"], started["workflow_run_id"]) == (wid, handle.run_id)
            scheduled = of_type(events, "ActivityScheduled")[0]["payload"]
            assert scheduled["activity_type"] == "conformance.greet"
            assert {"activity_execution_id", "sequence"} <= scheduled.keys()
            completed = of_type(events, "ActivityCompleted")[0]["payload"]
            assert completed["activity_execution_id"] == scheduled["activity_execution_id"]
            assert_replays(GreeterWorkflow, events, ["world"], {"greeting": "hello, world"})

    asyncio.run(scenario())


@activity.defn(name="conformance.flaky")
def flaky(succeed_on: int) -> int:
    attempt = activity.context().info.attempt_number
    if attempt < succeed_on:
        raise ValueError(f"attempt {attempt} fails")
    return attempt


@workflow.defn(name="conformance.retry-backoff")
class RetryBackoffWorkflow:
    def run(self, ctx, succeed_on):  # noqa: ANN001, ANN201
        attempt = yield ctx.schedule_activity(
            "conformance.flaky", [succeed_on],
            retry_policy=ActivityRetryPolicy(max_attempts=3, backoff_seconds=[1, 2]),
            start_to_close_timeout=30,
        )
        return attempt


def test_activity_retry_policy_with_a_backoff_list(server: EmbeddedServer) -> None:
    async def scenario() -> None:
        async with sdk_client(server) as client:
            queue, wid = new_id("q"), new_id("retry")
            handle = await client.start_workflow(workflow_type="conformance.retry-backoff", task_queue=queue, workflow_id=wid, input=[3])
            async with running_worker(client, task_queue=queue, workflows=[RetryBackoffWorkflow], activities=[flaky]):
                events = await wait_history(client, wid, handle.run_id, closed("WorkflowCompleted"), what="retried activity completes")
            scheduled = of_type(events, "ActivityScheduled")[0]["payload"]
            # The policy is snapped onto the durable activity execution (its `activity` snapshot).
            assert scheduled["activity"]["retry_policy"]["max_attempts"] == 3
            assert scheduled["activity"]["retry_policy"]["backoff_seconds"] == [1, 2]
            retries = [e["payload"] for e in of_type(events, "ActivityRetryScheduled")]
            # The list is applied per retry: 1 s after attempt 1, 2 s after attempt 2.
            assert [(r["retry_after_attempt"], r["retry_backoff_seconds"]) for r in retries] == [(1, 1), (2, 2)]
            assert len(of_type(events, "ActivityStarted")) == 3
            assert of_type(events, "ActivityCompleted")[0]["payload"]["activity_execution_id"] == scheduled["activity_execution_id"]
            assert "ActivityFailed" not in types(events)
            assert await client.get_result(handle) == 3
            assert_replays(RetryBackoffWorkflow, events, [3], 3)

    asyncio.run(scenario())


class PaymentDeclined(Exception):
    pass


@activity.defn(name="conformance.refuse-by-flag")
def refuse_by_flag() -> None:
    raise NonRetryableError("card reported stolen")


@activity.defn(name="conformance.refuse-by-type")
def refuse_by_type() -> None:
    raise PaymentDeclined("insufficient funds")


@workflow.defn(name="conformance.non-retryable")
class NonRetryableWorkflow:
    def run(self, ctx, activity_type):  # noqa: ANN001, ANN201
        try:
            yield ctx.schedule_activity(
                activity_type, [],
                retry_policy=ActivityRetryPolicy(max_attempts=5, backoff_seconds=[1, 1, 1, 1], non_retryable_error_types=["PaymentDeclined"]),
            )
        except ActivityFailed as failure:
            return {"caught": failure.exception_type, "non_retryable": failure.non_retryable}
        return {"caught": None}


def test_non_retryable_by_flag_and_by_error_type(server: EmbeddedServer) -> None:
    async def scenario() -> None:
        async with sdk_client(server) as client:
            queue = new_id("q")
            runs = {}
            for activity_type in ("conformance.refuse-by-flag", "conformance.refuse-by-type"):
                wid = new_id("nonretry")
                runs[activity_type] = (wid, await client.start_workflow(workflow_type="conformance.non-retryable", task_queue=queue, workflow_id=wid, input=[activity_type]))
            async with running_worker(client, task_queue=queue, workflows=[NonRetryableWorkflow], activities=[refuse_by_flag, refuse_by_type]):
                for activity_type, (wid, handle) in runs.items():
                    events = await wait_history(client, wid, handle.run_id, closed("WorkflowCompleted"), what=f"{activity_type} fails once, for good")
                    # One attempt, no retry, although the policy allowed five.
                    assert len(of_type(events, "ActivityStarted")) == 1
                    assert "ActivityRetryScheduled" not in types(events)
                    failed = of_type(events, "ActivityFailed")[0]["payload"]
                    assert failed["failure_category"] == "activity"
                    assert {"failure_id", "exception_type", "exception_class", "message"} <= failed.keys()
                    # The workflow caught it, so the failure is recorded as handled.
                    assert of_type(events, "FailureHandled")[0]["payload"]["failure_id"] == failed["failure_id"]
                    result = await client.get_result(handle)
                    assert result["non_retryable"] is True
                    if activity_type == "conformance.refuse-by-flag":
                        assert failed["non_retryable"] is True
                        assert result["caught"] == "NonRetryableError"
                    else:
                        # Not flagged by the worker: the server matched non_retryable_error_types.
                        assert failed["exception_type"] == "PaymentDeclined"
                        assert result["caught"] == "PaymentDeclined"
                    assert_replays(NonRetryableWorkflow, events, [activity_type], result)

    asyncio.run(scenario())


@activity.defn(name="conformance.slow-first-attempt")
def slow_first_attempt(delay: float) -> int:
    attempt = activity.context().info.attempt_number
    if attempt == 1:
        # Longer than start_to_close: this attempt's completion arrives after the server timed it out.
        time.sleep(delay)
    return attempt


@activity.defn(name="conformance.silent-after-one-heartbeat")
def silent_after_one_heartbeat(delay: float) -> int:
    ctx = activity.context()
    if ctx.info.attempt_number == 1:
        ctx.heartbeat_sync({"progress": "started"})
        time.sleep(delay)
    return ctx.info.attempt_number


@workflow.defn(name="conformance.timeouts")
class TimeoutWorkflow:
    def run(self, ctx, kind, delay):  # noqa: ANN001, ANN201
        if kind == "start_to_close":
            attempt = yield ctx.schedule_activity(
                "conformance.slow-first-attempt", [delay], start_to_close_timeout=1,
                retry_policy=ActivityRetryPolicy(max_attempts=2, backoff_seconds=[0]),
            )
        else:
            attempt = yield ctx.schedule_activity(
                "conformance.silent-after-one-heartbeat", [delay], start_to_close_timeout=30, heartbeat_timeout=1,
                retry_policy=ActivityRetryPolicy(max_attempts=2, backoff_seconds=[0]),
            )
        return attempt


def test_start_to_close_and_heartbeat_timeouts_with_a_late_report(server: EmbeddedServer, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="durable_workflow.worker")

    def late_reports() -> list[str]:
        return [r.getMessage() for r in caplog.records if r.getMessage().startswith("failed to complete activity task")]

    async def scenario() -> None:
        async with sdk_client(server) as client:
            queue = new_id("q")
            runs = {}
            for kind in ("start_to_close", "heartbeat"):
                wid = new_id(f"timeout-{kind}")
                runs[kind] = (wid, await client.start_workflow(workflow_type="conformance.timeouts", task_queue=queue, workflow_id=wid, input=[kind, 4]))
            async with running_worker(client, task_queue=queue, workflows=[TimeoutWorkflow], activities=[slow_first_attempt, silent_after_one_heartbeat]):
                for kind, (wid, handle) in runs.items():
                    events = await wait_history(client, wid, handle.run_id, closed("WorkflowCompleted"), what=f"{kind} timeout, then a retry that completes")
                    retry = of_type(events, "ActivityRetryScheduled")
                    assert len(retry) == 1, types(events)
                    assert retry[0]["payload"]["retry_after_attempt"] == 1
                    # The completed attempt is the second one.
                    assert await client.get_result(handle) == 2
                    assert len(of_type(events, "ActivityCompleted")) == 1
                    if kind == "heartbeat":
                        assert len(of_type(events, "ActivityHeartbeatRecorded")) >= 1
                    assert_replays(TimeoutWorkflow, events, [kind, 4], 2)
                # Each first attempt finally reports its result ~4 s after its 1 s deadline; the
                # server refuses both (the SDK logs the refusal and submits nothing else).
                end = time.monotonic() + DEADLINE_SECONDS
                while len(late_reports()) < 2 and time.monotonic() < end:
                    await asyncio.sleep(0.1)
                assert len(late_reports()) == 2, late_reports()
                assert all("409" in message for message in late_reports()), late_reports()
            for kind, (wid, handle) in runs.items():
                events = await history(client, wid, handle.run_id)
                assert len(of_type(events, "ActivityCompleted")) == 1, f"{kind}: a late report changed history: {types(events)}"
                assert types(events)[-1] == "WorkflowCompleted"

    asyncio.run(scenario())
