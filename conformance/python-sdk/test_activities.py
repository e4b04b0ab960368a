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


# What each attempt's heartbeat raised inside the activity, by key: the SDK's own classification of
# the server's answer (activities run on worker threads in this process).
HEARTBEAT_OUTCOMES: dict[str, list[str]] = {}


@activity.defn(name="conformance.heartbeat-until-refused")
def heartbeat_until_refused(key: str, pause: float) -> int:
    ctx = activity.context()
    if ctx.info.attempt_number > 1:
        return ctx.info.attempt_number
    end = time.monotonic() + DEADLINE_SECONDS
    while time.monotonic() < end:
        try:
            ctx.heartbeat_sync({"key": key})
        except BaseException as error:  # noqa: BLE001 - the class the SDK raised is what is under test (ActivityCancelled is a BaseException)
            HEARTBEAT_OUTCOMES.setdefault(key, []).append(type(error).__name__)
            raise
        time.sleep(pause)
    return ctx.info.attempt_number


@workflow.defn(name="conformance.heartbeat-refusal")
class HeartbeatRefusalWorkflow:
    def run(self, ctx, key, pause, heartbeat_timeout):  # noqa: ANN001, ANN201
        attempt = yield ctx.schedule_activity(
            "conformance.heartbeat-until-refused", [key, pause], start_to_close_timeout=60,
            heartbeat_timeout=heartbeat_timeout,
            retry_policy=ActivityRetryPolicy(max_attempts=2, backoff_seconds=[0]),
        )
        return attempt


async def _wait_outcome(key: str) -> list[str]:
    end = time.monotonic() + DEADLINE_SECONDS
    while key not in HEARTBEAT_OUTCOMES and time.monotonic() < end:
        await asyncio.sleep(0.05)
    return HEARTBEAT_OUTCOMES.get(key, [])


def test_heartbeat_on_a_cancelled_run_raises_activity_cancelled(server: EmbeddedServer) -> None:
    """The real server answers 200 cancel_requested (not 409), so the SDK raises ActivityCancelled."""

    async def scenario() -> None:
        async with sdk_client(server) as client:
            queue, wid, key = new_id("q"), new_id("hb-cancel"), new_id("k")
            handle = await client.start_workflow(
                workflow_type="conformance.heartbeat-refusal", task_queue=queue, workflow_id=wid, input=[key, 0.1, 30],
            )
            async with running_worker(client, task_queue=queue, workflows=[HeartbeatRefusalWorkflow], activities=[heartbeat_until_refused]):
                await wait_history(client, wid, handle.run_id, closed("ActivityHeartbeatRecorded"), what="a first heartbeat")
                await client.cancel_workflow(wid, reason="conformance")
                assert await _wait_outcome(key) == ["ActivityCancelled"]
            events = await history(client, wid, handle.run_id)
            assert types(events)[-1] == "WorkflowCancelled", types(events)

    asyncio.run(scenario())


def test_heartbeat_of_a_timed_out_attempt_raises_lease_authority_lost(server: EmbeddedServer) -> None:
    """Attempt 1 goes silent past its heartbeat timeout; its next heartbeat gets 200 can_continue
    false (attempt_closed), which the SDK raises as ActivityLeaseAuthorityLost; attempt 2 completes."""

    async def scenario() -> None:
        async with sdk_client(server) as client:
            queue, wid, key = new_id("q"), new_id("hb-timeout"), new_id("k")
            handle = await client.start_workflow(
                workflow_type="conformance.heartbeat-refusal", task_queue=queue, workflow_id=wid, input=[key, 3, 1],
            )
            async with running_worker(client, task_queue=queue, workflows=[HeartbeatRefusalWorkflow], activities=[heartbeat_until_refused]):
                events = await wait_history(client, wid, handle.run_id, closed("WorkflowCompleted"), what="a timed-out attempt, then a retry")
                assert await _wait_outcome(key) == ["ActivityLeaseAuthorityLost"]
            assert await client.get_result(handle) == 2
            assert len(of_type(events, "ActivityTimedOut")) + len(of_type(events, "ActivityRetryScheduled")) >= 1
            assert_replays(HeartbeatRefusalWorkflow, events, [key, 3, 1], 2)

    asyncio.run(scenario())


@workflow.defn(name="conformance.retry-without-backoff")
class RetryWithoutBackoffWorkflow:
    def run(self, ctx):  # noqa: ANN001, ANN201
        attempt = yield ctx.schedule_activity(
            # A mapping goes to the server as written (ActivityRetryPolicy would compute a list), so this
            # is the command a worker sends when it names no backoff, as the Rust SDK does.
            "conformance.flaky-twice", [], start_to_close_timeout=30, retry_policy={"max_attempts": 3},
        )
        return attempt


@activity.defn(name="conformance.flaky-twice")
def flaky_twice() -> int:
    attempt = activity.context().info.attempt_number
    if attempt < 3:
        raise RuntimeError(f"attempt {attempt} fails")
    return attempt


def test_retry_policy_without_backoff_retries_at_once_and_activities_have_no_execution_mode(server: EmbeddedServer) -> None:
    """The engine snapshots [] for a policy without backoff_seconds, and writes no execution_mode for a
    queued activity; the SDK's history shows both."""

    async def scenario() -> None:
        async with sdk_client(server) as client:
            queue, wid = new_id("q"), new_id("no-backoff")
            handle = await client.start_workflow(workflow_type="conformance.retry-without-backoff", task_queue=queue, workflow_id=wid)
            async with running_worker(client, task_queue=queue, workflows=[RetryWithoutBackoffWorkflow], activities=[flaky_twice]):
                events = await wait_history(client, wid, handle.run_id, closed("WorkflowCompleted"), what="two immediate retries")
            retries = of_type(events, "ActivityRetryScheduled")
            assert [r["payload"]["retry_backoff_seconds"] for r in retries] == [0, 0]
            for started in of_type(events, "ActivityStarted"):
                assert started["payload"]["activity"]["retry_policy"]["backoff_seconds"] == []
                assert "execution_mode" not in started["payload"]["activity"]
            assert await client.get_result(handle) == 3
            assert_replays(RetryWithoutBackoffWorkflow, events, [], 3)

    asyncio.run(scenario())
