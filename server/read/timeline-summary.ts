import type { Json } from "./format";
import type { HistoryEventRecord, Metadata } from "./timeline-metadata";
import { i, s } from "./timeline-metadata";

/** A `timeline[]` entry's `summary`: the engine's sentence for each event type, word for word. */

const or = (withValue: string | null, without: string): string => withValue ?? without;

function displayLabel(v: string): string {
  return v.includes("\\") ? (v.split("\\").pop() ?? v) : v;
}

function durationLabel(seconds: number): string {
  return seconds === 1 ? "1 second" : `${seconds} seconds`;
}

function conditionLabel(p: Json): string {
  const key = s(p.condition_key);
  return key === null ? "" : ` ${key}`;
}

/** What the sentences say, read once per event from its payload and metadata. */
interface SentenceFacts {
  p: Json;
  m: Metadata;
  activity: string;
  delay: number | null;
  message: string | null;
  outcome: string | null;
  rejection: string | null;
  signal: string | null;
  update: string | null;
  child: string;
  timeout: number | null;
  timerKind: string | null;
}

function sentenceFacts(e: HistoryEventRecord, m: Metadata): SentenceFacts {
  const p = e.payload;
  const activity = displayLabel(s(m.activity?.type) ?? s(m.activity?.class) ?? "activity");
  const delay = i(m.timer?.delay_seconds);
  const message = s(m.failure?.message);
  const outcome = s(m.command?.outcome);
  const rejection = s(m.command?.rejection_reason);
  const signal = s(m.command?.target_name) ?? s(p.signal_name);
  const update = s(m.command?.target_name) ?? s(p.update_name);
  const child = displayLabel(s(m.child?.type) ?? s(m.child?.class) ?? s(m.child?.run_id) ?? "child workflow");
  const timeout = i(p.timeout_seconds);
  const timerKind = s(p.timer_kind);
  return { p, m, activity, delay, message, outcome, rejection, signal, update, child, timeout, timerKind };
}

/**
 * `HistoryTimeline::summaryFor`: the summary sentences, verbatim (HistoryTimeline.php@8dc90d6), by
 * family of event; an event no family names reads as its type.
 */
export function timelineSummary(e: HistoryEventRecord, m: Metadata): string {
  const f = sentenceFacts(e, m);
  const t = e.event_type;
  return (
    lifecycleSentence(t, f) ??
    childSentence(t, f) ??
    messageSentence(t, f) ??
    activitySentence(t, f) ??
    markerSentence(t, f) ??
    timerSentence(t, f) ??
    `${t}.`
  );
}

/** Start, close, cancel, terminate, archive and repair of the run. */
function lifecycleSentence(type: string, f: SentenceFacts): string | undefined {
  const { p, message, outcome, rejection, m } = f;
  switch (type) {
    case "StartAccepted":
      return or(outcome && `Start accepted as ${outcome}.`, "Start accepted.");
    case "StartRejected":
      return or(rejection && `Start rejected: ${rejection}.`, "Start rejected.");
    case "WorkflowStarted":
      return "Workflow run started.";
    case "WorkflowContinuedAsNew":
      return `Continued as new on run ${s(p.continued_to_run_id) ?? "unknown"}.`;
    case "RepairRequested":
      if (outcome === "repair_dispatched")
        return `Repair recreated ${displayLabel(s(m.task?.type) ?? "workflow")} task.`;
      return outcome === "repair_not_needed"
        ? "Repair accepted; the run already had a durable resume source."
        : "Repair accepted.";
    case "CancelRequested":
      return "Cancel requested.";
    case "WorkflowCancelled":
      return "Workflow cancelled.";
    case "TerminateRequested":
      return "Terminate requested.";
    case "WorkflowTerminated":
      return "Workflow terminated.";
    case "ArchiveRequested":
      return outcome === "archive_not_needed"
        ? "Archive accepted; the run was already archived."
        : outcome === "archived"
          ? "Archive requested."
          : "Archive accepted.";
    case "WorkflowArchived":
      return "Workflow archived.";
    case "WorkflowCompleted":
      return "Workflow completed.";
    case "WorkflowTimedOut":
      if (p.timeout_kind === "execution_timeout") return "Workflow execution deadline expired.";
      if (p.timeout_kind === "run_timeout") return "Workflow run deadline expired.";
      return or(message && `Workflow timed out: ${message}.`, "Workflow timed out.");
    case "WorkflowFailed":
      return or(message && `Workflow failed: ${message}.`, "Workflow failed.");
    default:
      return undefined;
  }
}

/** Child workflow runs. */
function childSentence(type: string, f: SentenceFacts): string | undefined {
  const { message, child } = f;
  switch (type) {
    case "ChildWorkflowScheduled":
      return `Scheduled child workflow ${child}.`;
    case "ChildRunStarted":
      return `Child workflow ${child} started.`;
    case "ChildRunCompleted":
      return `Child workflow ${child} completed.`;
    case "ChildRunFailed":
      return or(message && `Child workflow ${child} failed: ${message}.`, `Child workflow ${child} failed.`);
    case "ChildRunCancelled":
      return `Child workflow ${child} cancelled.`;
    case "ChildRunTerminated":
      return `Child workflow ${child} terminated.`;
    default:
      return undefined;
  }
}

/** Signals, updates and the waits they resolve. */
function messageSentence(type: string, f: SentenceFacts): string | undefined {
  const { p, delay, message, rejection, signal, update, timeout } = f;
  switch (type) {
    case "ConditionWaitOpened":
      return p.timeout_seconds == null
        ? `Waiting for condition${conditionLabel(p)}.`
        : `Waiting for condition${conditionLabel(p)} or timeout after ${durationLabel(timeout ?? 0)}.`;
    case "ConditionWaitSatisfied":
      return "Condition satisfied.";
    case "ConditionWaitTimedOut":
      return `Condition timed out after ${durationLabel(timeout ?? delay ?? 0)}.`;
    case "SignalWaitOpened":
      if (signal === null) return "Waiting for signal.";
      return p.timeout_seconds == null
        ? `Waiting for signal ${signal}.`
        : `Waiting for signal ${signal} or timeout after ${durationLabel(timeout ?? 0)}.`;
    case "SignalReceived":
      return or(signal && `Signal ${signal} received.`, "Signal received.");
    case "SignalApplied":
      return or(signal && `Applied signal ${signal}.`, "Signal applied.");
    case "UpdateAccepted":
      return or(update && `Accepted update ${update}.`, "Update accepted.");
    case "UpdateRejected":
      if (update !== null && rejection !== null) return `Rejected update ${update}: ${rejection}.`;
      if (update !== null) return `Rejected update ${update}.`;
      return or(rejection && `Update rejected: ${rejection}.`, "Update rejected.");
    case "UpdateApplied":
      return or(update && `Applied update ${update}.`, "Update applied.");
    case "UpdateCompleted":
      if (message === null) return or(update && `Completed update ${update}.`, "Update completed.");
      return update === null ? `Update failed: ${message}.` : `Update ${update} failed: ${message}.`;
    default:
      return undefined;
  }
}

/** Activity executions and handled failures. */
function activitySentence(type: string, f: SentenceFacts): string | undefined {
  const { p, activity, message } = f;
  switch (type) {
    case "ActivityScheduled":
      return `Scheduled ${activity}.`;
    case "ActivityStarted":
      return `Started ${activity}.`;
    case "ActivityHeartbeatRecorded":
      return `Recorded heartbeat for ${activity}.`;
    case "ActivityRetryScheduled":
      return `Scheduled retry ${(i(p.retry_after_attempt) ?? 0) + 1} for ${activity}.`;
    case "ActivityCompleted":
      return `Completed ${activity}.`;
    case "ActivityFailed":
      return or(message && `Failed ${activity}: ${message}.`, `Failed ${activity}.`);
    case "ActivityCancelled":
      return `Cancelled ${activity}.`;
    case "ActivityTimedOut":
      return or(message && `Timed out ${activity}: ${message}.`, `Timed out ${activity}.`);
    case "FailureHandled":
      return or(message && `Handled failure: ${message}.`, "Failure handled.");
    default:
      return undefined;
  }
}

/** Side effects, upserts, version markers, the message cursor. */
function markerSentence(type: string, f: SentenceFacts): string | undefined {
  const { p } = f;
  switch (type) {
    case "SideEffectRecorded":
      return "Recorded side effect.";
    case "SearchAttributesUpserted":
      return "Search attributes upserted.";
    case "MemoUpserted":
      return "Memo upserted.";
    case "VersionMarkerRecorded": {
      const change = s(p.change_id);
      const version = i(p.version);
      if (change !== null && version !== null) return `Recorded version marker ${change} = ${version}.`;
      if (change !== null) return `Recorded version marker ${change}.`;
      return version !== null ? `Recorded version marker ${version}.` : "Recorded version marker.";
    }
    case "MessageCursorAdvanced":
      return `Message cursor advanced to ${i(p.new_position) ?? 0}.`;
    default:
      return undefined;
  }
}

/** Timers, condition and signal timeouts included. */
function timerSentence(type: string, f: SentenceFacts): string | undefined {
  const { delay, timerKind } = f;
  switch (type) {
    case "TimerScheduled":
      if (timerKind === "condition_timeout")
        return delay === null
          ? "Scheduled condition timeout."
          : `Scheduled condition timeout for ${durationLabel(delay)}.`;
      if (timerKind === "signal_timeout")
        return delay === null ? "Scheduled signal timeout." : `Scheduled signal timeout for ${durationLabel(delay)}.`;
      return delay === null ? "Scheduled timer." : `Scheduled timer for ${durationLabel(delay)}.`;
    case "TimerFired":
      if (timerKind === "condition_timeout")
        return delay === null ? "Condition timeout fired." : `Condition timeout fired after ${durationLabel(delay)}.`;
      if (timerKind === "signal_timeout")
        return delay === null ? "Signal timeout fired." : `Signal timeout fired after ${durationLabel(delay)}.`;
      return delay === null ? "Timer fired." : `Timer fired after ${durationLabel(delay)}.`;
    case "TimerCancelled":
      return timerKind === "condition_timeout"
        ? "Condition timeout cancelled."
        : timerKind === "signal_timeout"
          ? "Signal timeout cancelled."
          : "Timer cancelled.";
    default:
      return undefined;
  }
}
