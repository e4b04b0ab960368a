"""Workflow-level features through real SDK workers: timers, signals (condition waits), child
workflows, continue-as-new, cancel and terminate from the SDK client, and the SDK refusing what the
server does not advertise (updates, cooperative cancellation). Each asserts on the durable history read back."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

import pytest
from conftest import EmbeddedServer
from sdk_support import assert_replays, closed, history, new_id, of_type, running_worker, sdk_client, types, wait_history
from durable_workflow import workflow
from durable_workflow.workflow import replay
from durable_workflow.errors import ChildWorkflowFailed, WorkflowFailed, WorkflowNotFound


@workflow.defn(name="conformance.timer")
class TimerWorkflow:
    def run(self, ctx, seconds):  # noqa: ANN001, ANN201
        yield ctx.start_timer(seconds)
        return "woke"


def test_durable_timer(server: EmbeddedServer) -> None:
    async def scenario() -> None:
        async with sdk_client(server) as client:
            queue, wid = new_id("q"), new_id("timer")
            handle = await client.start_workflow(workflow_type="conformance.timer", task_queue=queue, workflow_id=wid, input=[1])
            async with running_worker(client, task_queue=queue, workflows=[TimerWorkflow]):
                events = await wait_history(client, wid, handle.run_id, closed("WorkflowCompleted"), what="timer fires and the run completes")
            assert types(events)[2:] == ["TimerScheduled", "TimerFired", "WorkflowCompleted"]
            scheduled = of_type(events, "TimerScheduled")[0]["payload"]
            fired = of_type(events, "TimerFired")[0]["payload"]
            assert scheduled["delay_seconds"] == 1
            assert fired["timer_id"] == scheduled["timer_id"]
            assert fired["sequence"] == scheduled["sequence"]
            assert_replays(TimerWorkflow, events, [1], "woke")

    asyncio.run(scenario())


@workflow.defn(name="conformance.approval")
class ApprovalWorkflow:
    def __init__(self) -> None:
        self.approved_by: str | None = None

    @workflow.signal("approve")
    def on_approve(self, by: str) -> None:
        self.approved_by = by

    def run(self, ctx):  # noqa: ANN001, ANN201
        yield ctx.wait_condition(lambda: self.approved_by is not None, key="approved")
        return {"approved_by": self.approved_by}


def test_signal_satisfies_a_condition_wait(server: EmbeddedServer) -> None:
    async def scenario() -> None:
        async with sdk_client(server) as client:
            queue, wid = new_id("q"), new_id("approval")
            handle = await client.start_workflow(workflow_type="conformance.approval", task_queue=queue, workflow_id=wid)
            async with running_worker(client, task_queue=queue, workflows=[ApprovalWorkflow]):
                await wait_history(client, wid, handle.run_id, closed("ConditionWaitOpened"), what="the workflow parks on its condition")
                await client.signal_workflow(wid, "approve", args=["grace"])
                events = await wait_history(client, wid, handle.run_id, closed("WorkflowCompleted"), what="the signal resumes the run")
            assert await client.get_result(handle) == {"approved_by": "grace"}
            opened = of_type(events, "ConditionWaitOpened")[0]["payload"]
            received = of_type(events, "SignalReceived")[0]["payload"]
            satisfied = of_type(events, "ConditionWaitSatisfied")[0]["payload"]
            assert opened["condition_key"] == "approved"
            assert received["signal_name"] == "approve"
            assert satisfied["condition_wait_id"] == opened["condition_wait_id"]
            order = types(events)
            assert order.index("ConditionWaitOpened") < order.index("SignalReceived") < order.index("ConditionWaitSatisfied") < order.index("WorkflowCompleted")
            assert_replays(ApprovalWorkflow, events, [], {"approved_by": "grace"})

    asyncio.run(scenario())


@workflow.defn(name="conformance.deadline")
class DeadlineWorkflow:
    def __init__(self) -> None:
        self.approved = False

    @workflow.signal("approve")
    def on_approve(self) -> None:
        self.approved = True

    def run(self, ctx, timeout):  # noqa: ANN001, ANN201
        approved = yield ctx.wait_condition(lambda: self.approved, key="approved", timeout=timeout)
        return {"approved": bool(approved)}


def test_condition_wait_times_out(server: EmbeddedServer) -> None:
    async def scenario() -> None:
        async with sdk_client(server) as client:
            queue, wid = new_id("q"), new_id("deadline")
            handle = await client.start_workflow(workflow_type="conformance.deadline", task_queue=queue, workflow_id=wid, input=[1])
            async with running_worker(client, task_queue=queue, workflows=[DeadlineWorkflow]):
                events = await wait_history(client, wid, handle.run_id, closed("WorkflowCompleted"), what="the condition times out")
            assert await client.get_result(handle) == {"approved": False}
            opened = of_type(events, "ConditionWaitOpened")[0]["payload"]
            assert opened["timeout_seconds"] == 1
            # As the engine's external-worker bridge records it: a condition_timeout timer on the
            # wait's sequence, whose TimerFired is the timeout (DefaultWorkflowTaskBridge.php@8dc90d64).
            scheduled = of_type(events, "TimerScheduled")[0]["payload"]
            fired = of_type(events, "TimerFired")[0]["payload"]
            for timer in (scheduled, fired):
                assert timer["timer_kind"] == "condition_timeout"
                assert timer["condition_wait_id"] == opened["condition_wait_id"]
                assert timer["sequence"] == opened["sequence"]
            assert "ConditionWaitSatisfied" not in types(events)
            assert_replays(DeadlineWorkflow, events, [1], {"approved": False})

    asyncio.run(scenario())


def test_signal_before_the_condition_deadline_cancels_its_timer(server: EmbeddedServer) -> None:
    async def scenario() -> None:
        async with sdk_client(server) as client:
            queue, wid = new_id("q"), new_id("deadline-met")
            handle = await client.start_workflow(workflow_type="conformance.deadline", task_queue=queue, workflow_id=wid, input=[600])
            async with running_worker(client, task_queue=queue, workflows=[DeadlineWorkflow]):
                await wait_history(client, wid, handle.run_id, closed("ConditionWaitOpened"), what="the workflow parks with a 10-minute deadline")
                await client.signal_workflow(wid, "approve")
                events = await wait_history(client, wid, handle.run_id, closed("WorkflowCompleted"), what="the signal satisfies the wait")
            assert await client.get_result(handle) == {"approved": True}
            scheduled = of_type(events, "TimerScheduled")[0]["payload"]
            satisfied = of_type(events, "ConditionWaitSatisfied")[0]["payload"]
            cancelled = of_type(events, "TimerCancelled")[0]["payload"]
            assert satisfied["timer_id"] == scheduled["timer_id"] == cancelled["timer_id"]
            assert satisfied["signal_name"] == "approve"
            assert cancelled["timer_kind"] == "condition_timeout"
            assert "TimerFired" not in types(events)
            assert_replays(DeadlineWorkflow, events, [600], {"approved": True})

    asyncio.run(scenario())


@workflow.defn(name="conformance.child")
class ChildWorkflow:
    def run(self, ctx, n):  # noqa: ANN001, ANN201
        return n * 2
        yield  # pragma: no cover


@workflow.defn(name="conformance.parent")
class ParentWorkflow:
    def run(self, ctx, n):  # noqa: ANN001, ANN201
        doubled = yield ctx.start_child_workflow("conformance.child", [n])
        return {"child_result": doubled}


def test_child_workflow(server: EmbeddedServer) -> None:
    async def scenario() -> None:
        async with sdk_client(server) as client:
            queue, wid = new_id("q"), new_id("parent")
            handle = await client.start_workflow(workflow_type="conformance.parent", task_queue=queue, workflow_id=wid, input=[21])
            async with running_worker(client, task_queue=queue, workflows=[ParentWorkflow, ChildWorkflow]):
                events = await wait_history(client, wid, handle.run_id, closed("WorkflowCompleted"), what="the child completes and the parent follows")
            assert await client.get_result(handle) == {"child_result": 42}
            assert [t for t in types(events) if t.startswith("Child")] == ["ChildWorkflowScheduled", "ChildRunStarted", "ChildRunCompleted"]
            started = of_type(events, "ChildRunStarted")[0]["payload"]
            child_id, child_run = started["child_workflow_instance_id"], started["child_workflow_run_id"]
            child_events = await history(client, child_id, child_run)
            assert types(child_events)[-1] == "WorkflowCompleted"
            child_started = of_type(child_events, "WorkflowStarted")[0]["payload"]
            assert (child_started["parent_workflow_instance_id"], child_started["parent_workflow_run_id"]) == (wid, handle.run_id)
            assert_replays(ParentWorkflow, events, [21], {"child_result": 42})
            assert_replays(ChildWorkflow, child_events, [21], 42)

    asyncio.run(scenario())


@workflow.defn(name="conformance.slow-child")
class SlowChildWorkflow:
    def run(self, ctx):  # noqa: ANN001, ANN201
        yield ctx.start_timer(3600)
        return "late"


@workflow.defn(name="conformance.impatient-parent")
class ImpatientParentWorkflow:
    def run(self, ctx):  # noqa: ANN001, ANN201
        try:
            yield ctx.start_child_workflow("conformance.slow-child", [], execution_timeout_seconds=1)
        except ChildWorkflowFailed as failure:
            return {"child_failed": type(failure).__name__}
        return {"child_failed": None}


def test_child_workflow_execution_timeout(server: EmbeddedServer) -> None:
    async def scenario() -> None:
        async with sdk_client(server) as client:
            queue, wid = new_id("q"), new_id("impatient")
            handle = await client.start_workflow(workflow_type="conformance.impatient-parent", task_queue=queue, workflow_id=wid)
            async with running_worker(client, task_queue=queue, workflows=[ImpatientParentWorkflow, SlowChildWorkflow]):
                events = await wait_history(client, wid, handle.run_id, closed("WorkflowCompleted"), what="the child times out and the parent handles it")
            result = await client.get_result(handle)
            assert result == {"child_failed": "ChildWorkflowFailed"}
            started = of_type(events, "ChildRunStarted")[0]["payload"]
            child_events = await history(client, started["child_workflow_instance_id"], started["child_workflow_run_id"])
            assert types(child_events)[-1] == "WorkflowTimedOut"
            assert of_type(child_events, "WorkflowStarted")[0]["payload"]["execution_timeout_seconds"] == 1
            assert [t for t in types(events) if t.startswith("Child")][-1] == "ChildRunFailed"
            assert_replays(ImpatientParentWorkflow, events, [], result)

    asyncio.run(scenario())


@workflow.defn(name="conformance.countdown")
class CountdownWorkflow:
    def run(self, ctx, remaining):  # noqa: ANN001, ANN201
        if remaining > 0:
            return ctx.continue_as_new(remaining - 1)
        return "liftoff"
        yield  # pragma: no cover


def test_continue_as_new(server: EmbeddedServer) -> None:
    async def scenario() -> None:
        async with sdk_client(server) as client:
            queue, wid = new_id("q"), new_id("countdown")
            handle = await client.start_workflow(workflow_type="conformance.countdown", task_queue=queue, workflow_id=wid, input=[2])
            async with running_worker(client, task_queue=queue, workflows=[CountdownWorkflow]):
                # The start handle is bound to the first run, which continued; the chain's result
                # is read through a handle on the workflow id (the current run).
                assert await client.get_result(client.get_workflow_handle(wid), timeout=30) == "liftoff"
            assert await client.get_result(handle) is None
            runs = (await client.list_workflow_runs(wid)).runs
            assert len(runs) == 3
            first = await history(client, wid, runs[0].run_id)
            assert types(first)[-1] == "WorkflowContinuedAsNew"
            assert first[-1]["payload"]["continued_to_run_id"] == runs[1].run_id
            last = await history(client, wid, runs[2].run_id)
            assert of_type(last, "WorkflowStarted")[0]["payload"]["continued_from_run_id"] == runs[1].run_id
            assert types(last)[-1] == "WorkflowCompleted"
            assert_replays(CountdownWorkflow, last, [0], "liftoff")
            assert_replays(CountdownWorkflow, first, [2], completed=False)

    asyncio.run(scenario())


@workflow.defn(name="conformance.side-effects")
class SideEffectWorkflow:
    def run(self, ctx):  # noqa: ANN001, ANN201
        token = yield ctx.side_effect(lambda: "tok-1234")
        version = yield ctx.get_version("new-pricing", 1, 2)
        yield ctx.start_timer(0)
        return {"token": token, "version": version}


def test_side_effects_and_version_markers(server: EmbeddedServer) -> None:
    async def scenario() -> None:
        async with sdk_client(server) as client:
            queue, wid = new_id("q"), new_id("side-effects")
            handle = await client.start_workflow(workflow_type="conformance.side-effects", task_queue=queue, workflow_id=wid)
            async with running_worker(client, task_queue=queue, workflows=[SideEffectWorkflow]):
                events = await wait_history(client, wid, handle.run_id, closed("WorkflowCompleted"), what="the side effect and the marker are recorded")
            assert await client.get_result(handle) == {"token": "tok-1234", "version": 2}
            side = of_type(events, "SideEffectRecorded")[0]["payload"]
            marker = of_type(events, "VersionMarkerRecorded")[0]["payload"]
            assert {"sequence", "result"} <= side.keys()
            assert (marker["change_id"], marker["version"], marker["min_supported"], marker["max_supported"]) == ("new-pricing", 2, 1, 2)
            assert side["sequence"] < marker["sequence"]
            # Replay reads the recorded values back instead of calling the effect again. The engine
            # records the side effect's result as a bare blob in the run's codec (SideEffectRecorded
            # is {sequence, result}, DefaultWorkflowTaskBridge::historyPayloadValue@8dc90d64), so the
            # replay needs the run's codec, as the SDK worker passes it from the task;
            # replay_verify.verify_replay has no codec parameter and cannot replay this history.
            outcome = replay(SideEffectWorkflow, events, [], payload_codec="avro")
            assert [type(c).__name__ for c in outcome.commands] == ["CompleteWorkflow"]
            assert outcome.commands[0].result == {"token": "tok-1234", "version": 2}

    asyncio.run(scenario())


@workflow.defn(name="conformance.search-attributes")
class SearchAttributesWorkflow:
    def run(self, ctx):  # noqa: ANN001, ANN201
        yield ctx.upsert_search_attributes({"Stage": "packed", "Tags": ["fragile", "gift"], "Region": None})
        yield ctx.start_timer(0)
        return "done"


def test_upsert_search_attributes(server: EmbeddedServer) -> None:
    async def scenario() -> None:
        async with sdk_client(server) as client:
            queue, wid = new_id("q"), new_id("search-attrs")
            handle = await client.start_workflow(
                workflow_type="conformance.search-attributes", task_queue=queue, workflow_id=wid, search_attributes={"Region": "eu", "Priority": 3},
            )
            async with running_worker(client, task_queue=queue, workflows=[SearchAttributesWorkflow]):
                events = await wait_history(client, wid, handle.run_id, closed("WorkflowCompleted"), what="the upsert is recorded")
            upserted = of_type(events, "SearchAttributesUpserted")[0]["payload"]
            # {sequence, attributes, merged}, as the engine records it; null deletes a key.
            assert upserted["attributes"] == {"Stage": "packed", "Tags": ["fragile", "gift"], "Region": None}
            assert upserted["merged"] == {"Priority": 3, "Stage": "packed", "Tags": ["fragile", "gift"]}
            described = await client.describe_workflow(wid)
            assert described.search_attributes == {"Priority": 3, "Stage": "packed", "Tags": ["fragile", "gift"]}
            assert_replays(SearchAttributesWorkflow, events, [], "done")

    asyncio.run(scenario())


class OrderRejected(Exception):
    pass


@workflow.defn(name="conformance.failing")
class FailingWorkflow:
    def run(self, ctx, order):  # noqa: ANN001, ANN201
        yield ctx.start_timer(0)
        raise OrderRejected(f"order {order} rejected")


def test_workflow_failure_keeps_the_structured_exception(server: EmbeddedServer) -> None:
    async def scenario() -> None:
        async with sdk_client(server) as client:
            queue, wid = new_id("q"), new_id("failing")
            handle = await client.start_workflow(workflow_type="conformance.failing", task_queue=queue, workflow_id=wid, input=["A-7"])
            async with running_worker(client, task_queue=queue, workflows=[FailingWorkflow]):
                events = await wait_history(client, wid, handle.run_id, closed("WorkflowFailed"), what="the workflow's exception fails the run")
            with pytest.raises(WorkflowFailed, match="order A-7 rejected"):
                await client.get_result(handle)
            failed = of_type(events, "WorkflowFailed")[0]["payload"]
            assert failed["message"] == "order A-7 rejected"
            assert failed["exception_type"] == "OrderRejected"
            assert {"failure_id", "failure_category", "non_retryable", "exception_class", "exception"} <= failed.keys()
            assert failed["exception"]["message"] == "order A-7 rejected"
            assert types(events)[-1] == "WorkflowFailed"
            assert (await client.describe_workflow(wid)).status == "failed"
            assert_replays(FailingWorkflow, events, ["A-7"], completed=False)

    asyncio.run(scenario())


@workflow.defn(name="conformance.long-wait")
class LongWaitWorkflow:
    def run(self, ctx):  # noqa: ANN001, ANN201
        yield ctx.start_timer(3600)
        return "never"


@pytest.mark.parametrize("action", ["cancel", "terminate"])
def test_cancel_and_terminate_from_the_sdk_client(server: EmbeddedServer, action: str) -> None:
    async def scenario() -> None:
        async with sdk_client(server) as client:
            queue, wid = new_id("q"), new_id(action)
            handle = await client.start_workflow(workflow_type="conformance.long-wait", task_queue=queue, workflow_id=wid)
            async with running_worker(client, task_queue=queue, workflows=[LongWaitWorkflow]):
                await wait_history(client, wid, handle.run_id, closed("TimerScheduled"), what="the run parks on its hour-long timer")
                if action == "cancel":
                    await client.cancel_workflow(wid, reason="conformance cancel")
                else:
                    await client.terminate_workflow(wid, reason="conformance terminate")
                terminal = "WorkflowCancelled" if action == "cancel" else "WorkflowTerminated"
                events = await wait_history(client, wid, handle.run_id, closed(terminal), what=f"{action} closes the run")
            assert of_type(events, terminal)[0]["payload"]["reason"] == f"conformance {action}"
            # The open timer is cancelled with the run, never fired.
            assert "TimerFired" not in types(events)
            assert types(events)[-1] == terminal
            described = await client.describe_workflow(wid)
            assert described.status == ("cancelled" if action == "cancel" else "terminated")

    asyncio.run(scenario())


def test_sdk_sends_what_the_server_advertises(server: EmbeddedServer) -> None:
    """Cooperative cancellation is advertised now (test_cancellation.py), so the SDK no longer refuses
    it up front: the request reaches the server, whose answer for an unknown workflow is its 404.
    (Queries and updates are served too: test_queries.py, test_updates.py.)"""

    async def scenario() -> None:
        async with sdk_client(server) as client:
            with pytest.raises(WorkflowNotFound):
                await client.request_workflow_cancellation("any-workflow")

    asyncio.run(scenario())


SIGNAL_COUNT = 1_100


@workflow.defn(name="conformance.signal-counter")
class SignalCounterWorkflow:
    def __init__(self) -> None:
        self.seen = 0
        self.total = 0

    @workflow.signal("add")
    def on_add(self, n: int) -> None:
        self.seen += 1
        self.total += n

    def run(self, ctx, target):  # noqa: ANN001, ANN201
        yield ctx.wait_condition(lambda: self.seen >= target, key="all-added")
        return {"seen": self.seen, "total": self.total}


def test_long_signal_heavy_histories_replay_without_drift(server: EmbeddedServer) -> None:
    """1,100 signals, 16 in flight, into one condition wait, several runs: every history replays.

    Signals race the worker's leases here, so each run interleaves differently. sdk-python binds
    every signal recorded before a task's ConditionWaitSatisfied to the wait that task reopened
    (workflow.py `_receiver_condition_wait_bindings`); a signal written during the lease, as the
    engine writes it, was replayed one wait early and drifted about one suite run in four. The
    server now holds such a signal until the lease ends (docs/contract.md "Signals", issue 39)."""

    async def scenario() -> None:
        async with sdk_client(server) as client:
            for _ in range(4):
                queue, wid = new_id("q"), new_id("signal-counter")
                handle = await client.start_workflow(
                    workflow_type="conformance.signal-counter", task_queue=queue, workflow_id=wid, input=[SIGNAL_COUNT],
                )
                async with running_worker(client, task_queue=queue, workflows=[SignalCounterWorkflow]):
                    in_flight = asyncio.Semaphore(16)

                    async def send(n: int) -> None:
                        async with in_flight:
                            await client.signal_workflow(wid, "add", args=[n])

                    await asyncio.gather(*(send(n) for n in range(SIGNAL_COUNT)))
                    events = await wait_history(
                        client, wid, handle.run_id, closed("WorkflowCompleted"), what="every signal counted", deadline=120,
                    )
                expected = {"seen": SIGNAL_COUNT, "total": sum(range(SIGNAL_COUNT))}
                assert await client.get_result(handle) == expected
                assert len(of_type(events, "SignalReceived")) == SIGNAL_COUNT
                assert_replays(SignalCounterWorkflow, events, [SIGNAL_COUNT], expected)

    asyncio.run(scenario())


class SignalsDuringLease:
    """A worker interceptor that sends signals while its worker holds the lease of the first task
    whose history has a signal: after the claim handed it that history, before the SDK runs it."""

    def __init__(self, send: Callable[[], Awaitable[None]]) -> None:
        self.send = send
        self.sent = False

    async def execute_workflow_task(self, context, next):  # noqa: ANN001, ANN201, A002
        history = context.task.get("history_events") or []
        if not self.sent and any(e.get("event_type") == "SignalReceived" for e in history):
            self.sent = True
            await self.send()
        return await next(context)

    async def execute_activity(self, context, next):  # noqa: ANN001, ANN201, A002
        return await next(context)

    async def execute_query_task(self, context, next):  # noqa: ANN001, ANN201, A002
        return await next(context)


def test_signals_sent_during_a_leased_task_reach_the_next_task(server: EmbeddedServer) -> None:
    """The soak's race, made deterministic: two signals arrive while the worker holds the lease of
    the task the first signal resumed. The worker never saw them, so they go into history after
    that task's reopened wait (docs/contract.md "Signals"); the engine writes them before its
    ConditionWaitSatisfied, where the SDK's own worker then fails the next task's replay."""

    async def scenario() -> None:
        async with sdk_client(server) as client:
            queue, wid = new_id("q"), new_id("signal-lease")
            handle = await client.start_workflow(
                workflow_type="conformance.signal-counter", task_queue=queue, workflow_id=wid, input=[3],
            )

            async def two_more() -> None:
                await client.signal_workflow(wid, "add", args=[2])
                await client.signal_workflow(wid, "add", args=[3])

            interceptor = SignalsDuringLease(two_more)
            async with running_worker(client, task_queue=queue, workflows=[SignalCounterWorkflow], interceptors=[interceptor]):
                await wait_history(client, wid, handle.run_id, closed("ConditionWaitOpened"), what="the workflow parks on its condition")
                await client.signal_workflow(wid, "add", args=[1])
                events = await wait_history(client, wid, handle.run_id, closed("WorkflowCompleted"), what="all three signals counted")
            assert interceptor.sent
            expected = {"seen": 3, "total": 6}
            assert await client.get_result(handle) == expected
            assert types(events)[2:] == [
                "ConditionWaitOpened",
                "SignalReceived",
                "ConditionWaitSatisfied",
                "ConditionWaitOpened",
                "SignalReceived",
                "SignalReceived",
                "ConditionWaitSatisfied",
                "WorkflowCompleted",
            ]
            assert_replays(SignalCounterWorkflow, events, [3], expected)

    asyncio.run(scenario())
