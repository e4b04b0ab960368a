"""Schedules through the official SDK: `Client.create_schedule`, `list_schedules`, `describe_schedule`,
`pause_schedule`, `resume_schedule`, `trigger_schedule`, `backfill_schedule`, `update_schedule`,
`get_schedule_history` and `delete_schedule` at their defaults against the embedded server, with an
SDK worker serving the runs the fires start and their durable history read back.

Shapes follow server@11d35b7 ScheduleController (lib/dw/fixtures/schedules.md). The real describe
answer nests status and counters under `state` / `info`, while sdk-python 2.12.0 reads top-level
`status`, `fires_count`, `next_fire_at`: against the real server (and so here) those SDK fields stay
at their defaults, and the scenario reads `description.info` instead. The embedded server evaluates
due schedules every second (the real one runs `schedule:evaluate` each minute), so a `PT2S` interval
fires within a few seconds of real time."""

from __future__ import annotations

import asyncio
import time
from datetime import datetime, timedelta, timezone

import pytest
from conftest import EmbeddedServer
from sdk_support import DEADLINE_SECONDS, closed, history, new_id, of_type, running_worker, sdk_client, wait_history
from durable_workflow import ScheduleAction, ScheduleSpec, workflow
from durable_workflow.errors import ScheduleAlreadyExists, ScheduleNotFound


@workflow.defn(name="conformance.scheduled.report")
class ScheduledReport:
    def run(self, ctx, region):  # noqa: ANN001, ANN201
        return f"report for {region}"
        yield  # a generator workflow, as the SDK's examples write them


async def until_fired(client, schedule_id: str, count: int) -> dict:  # noqa: ANN001
    """Polls describe until the schedule has fired `count` times; fails at the deadline."""
    end = time.monotonic() + DEADLINE_SECONDS
    info: dict = {}
    while time.monotonic() < end:
        info = (await client.describe_schedule(schedule_id)).info or {}
        if info.get("fires_count", 0) >= count:
            return info
        await asyncio.sleep(0.2)
    raise AssertionError(f"{schedule_id} did not fire {count} time(s) within {DEADLINE_SECONDS}s: {info}")


def test_schedule_lifecycle_through_the_sdk(server: EmbeddedServer) -> None:
    async def scenario() -> None:
        async with sdk_client(server) as client:
            queue, sid = new_id("sched-q"), new_id("nightly")
            async with running_worker(client, task_queue=queue, workflows=[ScheduledReport]):
                handle = await client.create_schedule(
                    schedule_id=sid,
                    spec=ScheduleSpec(intervals=[{"every": "PT2S"}]),
                    action=ScheduleAction(workflow_type="conformance.scheduled.report", task_queue=queue, input=["eu"]),
                    memo={"owner": "eu-desk"},
                    note="every two seconds",
                )
                assert handle.schedule_id == sid
                with pytest.raises(ScheduleAlreadyExists):
                    await client.create_schedule(
                        schedule_id=sid,
                        spec=ScheduleSpec(intervals=[{"every": "PT2S"}]),
                        action=ScheduleAction(workflow_type="conformance.scheduled.report", task_queue=queue),
                    )

                listed = await client.list_schedules()
                mine = [s for s in listed.schedules if s.schedule_id == sid]
                assert [(s.status, s.overlap_policy, s.note) for s in mine] == [("active", "skip", "every two seconds")]
                assert listed.next_page_token is None

                # The evaluator fires it; the run it started completes and carries the schedule's identity.
                info = await until_fired(client, sid, 1)
                fired = info["recent_actions"][0]
                assert fired["outcome"] == "scheduled"
                events = await wait_history(client, fired["workflow_id"], fired["run_id"], closed("WorkflowCompleted"), what="the scheduled run completes")
                [triggered] = of_type(events, "ScheduleTriggered")
                assert triggered["payload"]["schedule_id"] == sid
                assert triggered["payload"]["trigger_number"] == 1

                # Paused with a note, it stops firing and a manual trigger is skipped.
                await client.pause_schedule(sid, note="quiet hours")
                described = await client.describe_schedule(sid)
                assert described.spec == {"intervals": [{"every": "PT2S"}]}
                assert described.memo == {"owner": "eu-desk"}
                skipped = await client.trigger_schedule(sid)
                assert (skipped.outcome, skipped.reason) == ("skipped", "status_not_triggerable")

                # Resumed, a manual trigger starts a run at once (allow_all: no overlap refusal).
                await client.resume_schedule(sid)
                now_fired = await client.trigger_schedule(sid, overlap_policy="allow_all")
                assert now_fired.outcome == "triggered" and now_fired.workflow_id and now_fired.run_id
                await wait_history(client, now_fired.workflow_id, now_fired.run_id, closed("WorkflowCompleted"), what="the triggered run completes")

                # Backfill [start, end) over a past window: one run per 2 s occurrence, the end excluded.
                start = datetime(2026, 1, 15, 10, 0, 0, tzinfo=timezone.utc)
                backfill = await client.backfill_schedule(
                    sid, start_time=start.isoformat(), end_time=(start + timedelta(seconds=6)).isoformat(), overlap_policy="allow_all"
                )
                assert backfill.outcome == "backfill_started"
                assert backfill.fires_attempted == 3
                assert [(r["fire_time"], r["outcome"]) for r in backfill.results or []] == [
                    ("2026-01-15T10:00:00+00:00", "started"),
                    ("2026-01-15T10:00:02+00:00", "started"),
                    ("2026-01-15T10:00:04+00:00", "started"),
                ]
                for r in backfill.results or []:
                    run = (await client.list_workflow_runs(r["workflow_id"])).runs[0]
                    run_events = await wait_history(client, r["workflow_id"], run.run_id, closed("WorkflowCompleted"), what="a backfilled run completes")
                    assert of_type(run_events, "ScheduleTriggered")[0]["payload"]["occurrence_time"].startswith(r["fire_time"][:19])

                await client.update_schedule(sid, note="weekly now", max_runs=100)
                described = await client.describe_schedule(sid)
                assert described.max_runs == 100

                page = await client.get_schedule_history(sid, limit=500)
                kinds = [e.event_type for e in page.events]
                assert kinds[0] == "ScheduleCreated"
                for kind in ("SchedulePaused", "ScheduleTriggerSkipped", "ScheduleResumed", "ScheduleUpdated"):
                    assert kind in kinds, kinds
                assert kinds.count("ScheduleTriggered") >= 5  # the evaluator's, the trigger's, three backfilled
                paused = next(e for e in page.events if e.event_type == "SchedulePaused")
                assert (paused.payload or {})["reason"] == "quiet hours"
                assert (paused.payload or {})["command_context"]["context"]["server"]["command"] == "schedule.pause"
                assert [e.sequence for e in page.events] == list(range(1, len(page.events) + 1))

                await client.delete_schedule(sid)
                with pytest.raises(ScheduleNotFound):
                    await client.describe_schedule(sid)
                assert sid not in [s.schedule_id for s in (await client.list_schedules()).schedules]
                # The audit stream outlives the schedule.
                after = await client.get_schedule_history(sid, limit=500)
                assert after.events[-1].event_type == "ScheduleDeleted"
                assert (after.events[-1].payload or {})["reason"] == "deleted"
                # Every fire names the run it started, and that run is durably there.
                for event in (e for e in after.events if e.event_type == "ScheduleTriggered"):
                    started = await history(client, event.workflow_instance_id or "", event.workflow_run_id or "")
                    assert "WorkflowStarted" in [e["event_type"] for e in started]

    asyncio.run(scenario())

