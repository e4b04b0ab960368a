import type { ViewEvent } from "./events";
import { epochMs, readNumber, readString } from "./events";

/**
 * Waits derived from history pages (issue 14), shaped like export `waits[]` so the run page's Waits
 * panel draws them without the export. Kinds, statuses, ids and summaries follow the engine's wait
 * projection, durable-workflow/workflow@797aa6f163cbf78d2de76ebc09e6be89b99477dd:
 * src/V2/Support/RunWaitView.php (activityWait, timerWait, signalWaits, conditionWaits, childWaits),
 * SignalWaits.php (opening, matching by id or first open by name, timeout timers, run close),
 * UpdateWaits.php and ChildRunHistory.php. Summaries are the engine's English strings, as the export
 * carries them. What only the engine's rows know (task backing, diagnostic-only mutable rows,
 * commands) is not derived.
 */
export interface DerivedWait {
  id: string;
  kind: string;
  sequence: number | null;
  status: string;
  summary: string | null;
  /** The summary for the catalogs (derived waits only; the export's waits carry just `summary`). */
  summary_message?: WaitSummary;
  opened_at: string | null;
  deadline_at: string | null;
  resolved_at: string | null;
  target_name: string | null;
}

interface HeldWait extends DerivedWait {
  /** Engine `source_status` (waiting, received, timed_out, completed…): picks the summary. */
  source: string;
  label: string;
  timeoutSeconds: number | null;
}

/** Closed waits kept for the snapshot; older closed ones are only counted (`omitted`). */
export const CLOSED_WAITS_KEPT = 500;

/** The run-closing events SignalWaits.php@797aa6f1 ends open waits on (WorkflowTimedOut is not among them). */
const RUN_CLOSE: Readonly<Record<string, string>> = {
  WorkflowCompleted: "closed",
  WorkflowFailed: "failed",
  WorkflowCancelled: "cancelled",
  WorkflowTerminated: "terminated",
  WorkflowContinuedAsNew: "continued",
};

const ACTIVITY_CLOSE: Readonly<Record<string, { status: string; source: string }>> = {
  ActivityCompleted: { status: "resolved", source: "completed" },
  ActivityFailed: { status: "resolved", source: "failed" },
  ActivityTimedOut: { status: "resolved", source: "failed" },
  ActivityCancelled: { status: "cancelled", source: "cancelled" },
};

const CHILD_CLOSE: Readonly<Record<string, { status: string; source: string }>> = {
  ChildRunCompleted: { status: "resolved", source: "completed" },
  ChildRunFailed: { status: "resolved", source: "failed" },
  ChildRunCancelled: { status: "cancelled", source: "cancelled" },
  ChildRunTerminated: { status: "cancelled", source: "terminated" },
};

const STATUS_ORDER: Readonly<Record<string, number>> = { open: 0, resolved: 1, cancelled: 2 };

/**
 * A wait's summary as a catalog key under `run.waits.summaries` and its values, so each locale words
 * it (issue 16); `summary` keeps the engine's English, as the export carries it.
 */
export interface WaitSummary {
  key: WaitSummaryKey;
  values: Readonly<Record<string, string | number>>;
}

/**
 * The engine's English summaries (RunWaitView.php, SignalWaits.php @797aa6f1), `{duration}` being
 * its `durationLabel` ("1 second", "30 seconds"). messages/en.json words the same keys in ICU;
 * waits.test.ts renders both and keeps them equal.
 */
export const WAIT_SUMMARIES_EN = {
  "signal.open": "Waiting for signal {name}.",
  "signal.openTimeout": "Waiting for signal {name} or timeout after {duration}.",
  "signal.timeoutCancelled": "Signal {name} timeout was cancelled.",
  "signal.timedOut": "Signal {name} timed out after {duration}.",
  "signal.received": "Signal {name} received.",
  "condition.open": "Waiting for condition.",
  "condition.openTimeout": "Waiting for condition or timeout after {duration}.",
  "condition.timedOut": "Condition wait timed out after {duration}.",
  "condition.satisfied": "Condition satisfied.",
  "ended.signal.cancelled": "Signal wait ended when the run was cancelled.",
  "ended.signal.terminated": "Signal wait ended when the run was terminated.",
  "ended.signal.continued": "Signal wait ended when the run continued as new.",
  "ended.signal.closed": "Signal wait ended when the run closed.",
  "ended.signal.failed": "Signal wait ended when the run failed.",
  "ended.condition.cancelled": "Condition wait ended when the run was cancelled.",
  "ended.condition.terminated": "Condition wait ended when the run was terminated.",
  "ended.condition.continued": "Condition wait ended when the run continued as new.",
  "ended.condition.closed": "Condition wait ended when the run closed.",
  "ended.condition.failed": "Condition wait ended when the run failed.",
  "activity.open": "Waiting for activity {name}.",
  "activity.cancelled": "Activity wait for {name} was cancelled.",
  "activity.failed": "Activity {name} failed.",
  "activity.completed": "Activity {name} completed.",
  "timer.open": "Waiting for timer.",
  "timer.cancelled": "Timer wait was cancelled.",
  "timer.fired": "Timer fired.",
  "update.open": "Waiting for update {name}.",
  "update.failed": "Update {name} failed.",
  "update.completed": "Update {name} completed.",
  "child.open": "Waiting for child workflow {name}.",
  "child.completed": "Child workflow {name} completed.",
  "child.failed": "Child workflow {name} failed.",
  "child.cancelled": "Child workflow {name} cancelled.",
  "child.terminated": "Child workflow {name} terminated.",
} as const;
export type WaitSummaryKey = keyof typeof WAIT_SUMMARIES_EN;

const RUN_ENDINGS = new Set(["cancelled", "terminated", "continued", "closed"]);
const CHILD_ENDINGS = new Set(["failed", "cancelled", "terminated"]);

function said(key: WaitSummaryKey, values: WaitSummary["values"] = {}): WaitSummary {
  return { key, values };
}

function ended(what: "signal" | "condition", source: string): WaitSummary {
  const how = RUN_ENDINGS.has(source) ? source : "failed";
  return said(`ended.${what}.${how}` as WaitSummaryKey);
}

function timeout(seconds: number | null): Record<string, number> {
  return { seconds: seconds ?? 0 };
}

function signalSummary(wait: HeldWait): WaitSummary {
  const name = wait.label;
  if (wait.status === "open")
    return wait.timeoutSeconds === null
      ? said("signal.open", { name })
      : said("signal.openTimeout", { name, ...timeout(wait.timeoutSeconds) });
  if (wait.status === "cancelled")
    return wait.source === "timeout_cancelled"
      ? said("signal.timeoutCancelled", { name })
      : ended("signal", wait.source);
  return wait.source === "timed_out"
    ? said("signal.timedOut", { name, ...timeout(wait.timeoutSeconds) })
    : said("signal.received", { name });
}

function conditionSummary(wait: HeldWait): WaitSummary {
  if (wait.status === "open")
    return wait.timeoutSeconds === null
      ? said("condition.open")
      : said("condition.openTimeout", timeout(wait.timeoutSeconds));
  if (wait.status === "cancelled") return ended("condition", wait.source);
  return wait.source === "timed_out"
    ? said("condition.timedOut", timeout(wait.timeoutSeconds))
    : said("condition.satisfied");
}

function summaryOf(wait: HeldWait): WaitSummary {
  const name = wait.label;
  switch (wait.kind) {
    case "activity":
      if (wait.status === "open") return said("activity.open", { name });
      if (wait.status === "cancelled") return said("activity.cancelled", { name });
      return said(wait.source === "failed" ? "activity.failed" : "activity.completed", { name });
    case "timer":
      if (wait.status === "open") return said("timer.open");
      return said(wait.status === "cancelled" ? "timer.cancelled" : "timer.fired");
    case "signal":
      return signalSummary(wait);
    case "condition":
      return conditionSummary(wait);
    case "update":
      if (wait.source === "accepted") return said("update.open", { name });
      return said(wait.source === "failed" ? "update.failed" : "update.completed", { name });
    default:
      if (wait.status === "open") return said("child.open", { name });
      return said(CHILD_ENDINGS.has(wait.source) ? (`child.${wait.source}` as WaitSummaryKey) : "child.completed", {
        name,
      });
  }
}

/** RunWaitView.php `durationLabel`. */
function durationLabel(seconds: number): string {
  return `${seconds} second${seconds === 1 ? "" : "s"}`;
}

/** The engine's English for a summary. */
export function englishWaitSummary({ key, values }: WaitSummary): string {
  const all: Record<string, string | number> = { ...values };
  if (typeof values.seconds === "number") all.duration = durationLabel(values.seconds);
  return WAIT_SUMMARIES_EN[key].replace(/\{(\w+)\}/g, (whole, name: string) => String(all[name] ?? whole));
}

function toWait(held: HeldWait): DerivedWait {
  const message = summaryOf(held);
  return {
    id: held.id,
    kind: held.kind,
    sequence: held.sequence,
    status: held.status,
    summary: englishWaitSummary(message),
    summary_message: message,
    opened_at: held.opened_at,
    deadline_at: held.deadline_at,
    resolved_at: held.resolved_at,
    target_name: held.target_name,
  };
}

/** The activity an event names, as the ledger keys it (attempts.ts `executionKey`), without the stand-in mark. */
function activityId(event: ViewEvent): string {
  const p = event.payload;
  const executionId = readString(p, "activity_execution_id");
  if (executionId) return executionId;
  const sequence = readNumber(p, "sequence");
  return sequence !== null ? `sequence:${sequence}` : `event:${event.sequence}`;
}

function childKey(event: ViewEvent): string | null {
  const p = event.payload;
  return (
    readString(p, "child_call_id") ??
    readString(p, "workflow_link_id") ??
    readString(p, "child_workflow_instance_id") ??
    (readNumber(p, "sequence") !== null ? String(readNumber(p, "sequence")) : null)
  );
}

/**
 * Waits as a fold over events in sequence order. Memory stays bounded on long runs: open waits are
 * held, plus the {@link CLOSED_WAITS_KEPT} most recently closed; older closed waits are dropped and
 * counted in {@link WaitFold.omitted} (a 50,000-event run has one activity wait per activity).
 */
export class WaitFold {
  private readonly open = new Map<string, HeldWait>();
  /** Recently closed, oldest first (insertion order), at most CLOSED_WAITS_KEPT. */
  private readonly closed = new Map<string, HeldWait>();
  /** Closed activity waits, so a late event for one does not reopen it (the ledger ignores those too). */
  private readonly closedActivities = new Set<string>();
  /** Open signal wait ids per signal name, oldest first (SignalWaits.php `openWaitIdsByName`). */
  private readonly signalsByName = new Map<string, string[]>();
  private dropped = 0;

  constructor(private readonly keep = CLOSED_WAITS_KEPT) {}

  /** Closed waits dropped from the snapshot to bound memory. */
  get omitted(): number {
    return this.dropped;
  }

  add(event: ViewEvent): void {
    const type = event.type;
    if (type.startsWith("Activity")) this.activity(event);
    else if (type.startsWith("Timer")) this.timer(event);
    else if (type === "SignalWaitOpened" || type === "SignalReceived" || type === "SignalApplied") this.signal(event);
    else if (type.startsWith("ConditionWait")) this.condition(event);
    else if (type === "ChildWorkflowScheduled" || type.startsWith("ChildRun")) this.child(event);
    else if (type === "UpdateAccepted" || type === "UpdateApplied" || type === "UpdateCompleted") this.update(event);
    else if (type in RUN_CLOSE) this.runClosed(event, RUN_CLOSE[type] ?? "closed");
  }

  /** Open waits first, then resolved, then cancelled; each by opening time, then id (RunWaitView `forRun`). */
  waits(): DerivedWait[] {
    const all = [...this.open.values(), ...this.closed.values()].map(toWait);
    const at = (wait: DerivedWait) => epochMs(wait.opened_at) ?? Number.MAX_SAFE_INTEGER;
    return all.sort(
      (a, b) =>
        (STATUS_ORDER[a.status] ?? 99) - (STATUS_ORDER[b.status] ?? 99) ||
        at(a) - at(b) ||
        (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
    );
  }

  private held(id: string): HeldWait | undefined {
    return this.open.get(id) ?? this.closed.get(id);
  }

  private openWait(wait: Omit<HeldWait, "status" | "resolved_at" | "summary">): HeldWait {
    const held: HeldWait = { ...wait, status: "open", resolved_at: null, summary: null };
    this.open.set(held.id, held);
    return held;
  }

  private close(wait: HeldWait, status: string, source: string, at: string | null): void {
    wait.status = status;
    wait.source = source;
    wait.resolved_at = at;
    if (!this.open.delete(wait.id)) return; // already closed: updated in place
    this.closed.set(wait.id, wait);
    if (this.closed.size <= this.keep) return;
    const oldest = this.closed.keys().next().value;
    if (oldest !== undefined) this.closed.delete(oldest);
    this.dropped++;
  }

  private activity(event: ViewEvent): void {
    const p = event.payload;
    const key = activityId(event);
    if (this.closedActivities.has(key)) return;
    const id = `activity:${key}`;
    const wait =
      this.open.get(id) ??
      this.openWait({
        id,
        kind: "activity",
        sequence: readNumber(p, "sequence"),
        source: "pending",
        label: readString(p, "activity_type") ?? readString(p, "activity_class") ?? "activity",
        timeoutSeconds: null,
        opened_at: event.recordedAt,
        deadline_at: null,
        target_name: null,
      });
    // RunWaitView opens an activity wait at the execution's start, else its creation.
    if (event.type === "ActivityStarted" && wait.source === "pending") {
      wait.source = "running";
      wait.opened_at = event.recordedAt ?? wait.opened_at;
    }
    const closing = ACTIVITY_CLOSE[event.type];
    if (!closing) return;
    this.closedActivities.add(key);
    this.close(wait, closing.status, closing.source, event.recordedAt);
  }

  private timer(event: ViewEvent): void {
    const p = event.payload;
    const timerId = readString(p, "timer_id");
    const kind = readString(p, "timer_kind");
    if (kind === "signal_timeout") return this.signalTimeout(event);
    if (kind === "condition_timeout") return this.conditionTimeout(event);
    if (!timerId) return;
    const id = `timer:${timerId}`;
    const wait =
      this.held(id) ??
      this.openWait({
        id,
        kind: "timer",
        sequence: readNumber(p, "sequence"),
        source: "pending",
        label: "timer",
        timeoutSeconds: null,
        opened_at: event.recordedAt,
        deadline_at: readString(p, "fire_at"),
        target_name: null,
      });
    if (event.type === "TimerFired")
      this.close(wait, "resolved", "fired", readString(p, "fired_at") ?? event.recordedAt);
    else if (event.type === "TimerCancelled")
      this.close(wait, "cancelled", "cancelled", readString(p, "cancelled_at") ?? event.recordedAt);
  }

  /** SignalWaits.php `consumeOpenWaitId`: the named wait, else the oldest open one of that signal. */
  private consumeSignal(name: string, explicit: string | null): string | null {
    const ids = this.signalsByName.get(name) ?? [];
    if (explicit !== null) {
      const index = ids.indexOf(explicit);
      if (index >= 0) ids.splice(index, 1);
      return explicit;
    }
    return ids.shift() ?? null;
  }

  private signal(event: ViewEvent): void {
    const p = event.payload;
    const name = readString(p, "signal_name");
    if (name === null) return;
    const explicit = readString(p, "signal_wait_id");
    if (event.type === "SignalWaitOpened") {
      const sequence = readNumber(p, "sequence");
      const id = explicit ?? (sequence !== null ? `signal:${sequence}:${name}` : null);
      if (id === null) return;
      this.openWait({
        id,
        kind: "signal",
        sequence,
        source: "waiting",
        label: name,
        timeoutSeconds: readNumber(p, "timeout_seconds"),
        opened_at: event.recordedAt,
        deadline_at: null,
        target_name: name,
      });
      const ids = this.signalsByName.get(name) ?? [];
      ids.push(id);
      this.signalsByName.set(name, ids);
      return;
    }
    const id = this.consumeSignal(name, explicit);
    const wait = id === null ? undefined : this.held(id);
    if (!wait) return;
    this.close(wait, "resolved", event.type === "SignalApplied" ? "applied" : "received", event.recordedAt);
  }

  private signalTimeout(event: ViewEvent): void {
    const p = event.payload;
    const name = readString(p, "signal_name");
    if (name === null) return;
    const explicit = readString(p, "signal_wait_id");
    const id = event.type === "TimerScheduled" ? explicit : this.consumeSignal(name, explicit);
    const wait = id === null ? undefined : this.held(id);
    if (!wait) return;
    wait.timeoutSeconds = readNumber(p, "delay_seconds") ?? readNumber(p, "timeout_seconds") ?? wait.timeoutSeconds;
    wait.deadline_at = readString(p, "fire_at") ?? wait.deadline_at;
    if (event.type === "TimerScheduled" || wait.status !== "open") return;
    if (event.type === "TimerFired") this.close(wait, "resolved", "timed_out", event.recordedAt);
    else if (event.type === "TimerCancelled") this.close(wait, "cancelled", "timeout_cancelled", event.recordedAt);
  }

  private conditionId(event: ViewEvent): string | null {
    const p = event.payload;
    const sequence = readNumber(p, "sequence");
    return readString(p, "condition_wait_id") ?? (sequence !== null ? `condition:${sequence}` : null);
  }

  private condition(event: ViewEvent): void {
    const p = event.payload;
    const id = this.conditionId(event);
    if (id === null) return;
    if (event.type === "ConditionWaitOpened") {
      const key = readString(p, "condition_key");
      this.openWait({
        id,
        kind: "condition",
        sequence: readNumber(p, "sequence"),
        source: "waiting",
        label: key ?? "condition",
        timeoutSeconds: readNumber(p, "timeout_seconds"),
        opened_at: event.recordedAt,
        deadline_at: null,
        target_name: key,
      });
      return;
    }
    const wait = this.held(id);
    if (!wait || wait.status !== "open") return;
    if (event.type === "ConditionWaitSatisfied") this.close(wait, "resolved", "satisfied", event.recordedAt);
    else if (event.type === "ConditionWaitTimedOut") {
      wait.timeoutSeconds = readNumber(p, "timeout_seconds") ?? wait.timeoutSeconds;
      this.close(wait, "resolved", "timed_out", event.recordedAt);
    }
  }

  private conditionTimeout(event: ViewEvent): void {
    const id = this.conditionId(event);
    const wait = id === null ? undefined : this.open.get(id);
    if (wait) wait.deadline_at = readString(event.payload, "fire_at") ?? wait.deadline_at;
  }

  private child(event: ViewEvent): void {
    const p = event.payload;
    const key = childKey(event);
    if (key === null) return;
    const id = `child:${key}`;
    const wait =
      this.held(id) ??
      this.openWait({
        id,
        kind: "child",
        sequence: readNumber(p, "sequence"),
        source: "waiting",
        label: readString(p, "child_workflow_type") ?? readString(p, "child_workflow_class") ?? "child workflow",
        timeoutSeconds: null,
        opened_at: event.recordedAt,
        deadline_at: null,
        target_name: null,
      });
    wait.target_name = readString(p, "child_workflow_instance_id") ?? wait.target_name;
    const closing = CHILD_CLOSE[event.type];
    if (closing && wait.status === "open") this.close(wait, closing.status, closing.source, event.recordedAt);
  }

  private update(event: ViewEvent): void {
    const p = event.payload;
    const updateId = readString(p, "update_id");
    const commandId = readString(p, "workflow_command_id");
    const id = updateId !== null ? `update:${updateId}` : commandId !== null ? `update-command:${commandId}` : null;
    if (id === null) return;
    const wait =
      this.held(id) ??
      this.openWait({
        id,
        kind: "update",
        sequence: readNumber(p, "workflow_sequence") ?? readNumber(p, "sequence"),
        source: "accepted",
        label: readString(p, "update_name") ?? "update",
        timeoutSeconds: null,
        opened_at: event.recordedAt,
        deadline_at: null,
        target_name: readString(p, "update_name") ?? "update",
      });
    if (event.type !== "UpdateCompleted" || wait.status !== "open") return;
    const failed = readString(p, "failure_id") !== null || readString(p, "exception_class") !== null;
    this.close(wait, "resolved", failed ? "failed" : "completed", readString(p, "closed_at") ?? event.recordedAt);
  }

  /** SignalWaits.php `closeOpenWaits`: a closing run ends the signal and condition waits still open. */
  private runClosed(event: ViewEvent, source: string): void {
    for (const wait of [...this.open.values()]) {
      if (wait.kind === "signal" || wait.kind === "condition") this.close(wait, "cancelled", source, event.recordedAt);
    }
    this.signalsByName.clear();
  }
}
