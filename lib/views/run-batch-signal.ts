import type { SendResult } from "@/lib/confirm/bulk";
import type { ObservedEvent } from "@/lib/confirm/confirm";
import { confirmationSteps } from "@/lib/confirm/confirm";
import type { HistoryEventInput } from "./events";
import { toViewEvents } from "./events";
import { WaitFold } from "./waits";
import { awaitedSignalNames } from "./signal-names";

/**
 * Batch signal of runs selected in the runs list (issue 15 build item 3). The dry run reads each
 * run afresh (describe's `is_terminal`, `actions.can_signal`, `wait_reason`, and its waits folded
 * from history) and says per run whether it awaits the typed name; the engine records any name, but
 * only a matching open wait closes (signal-names.ts). Tracking re-reads history until the
 * SignalReceived carrying the command id is there (confirm.ts), then whether the run still awaits
 * that name. Pure.
 */

export type SignalBucket = "awaited" | "unawaited" | "skip_closed" | "skip_not_allowed" | "skip_unreadable";
export const SIGNAL_BUCKETS: readonly SignalBucket[] = [
  "awaited",
  "unawaited",
  "skip_closed",
  "skip_not_allowed",
  "skip_unreadable",
];

/** What the dry run read of one run; `read` is null when describe or history could not be read. */
export interface SignalRunInput {
  workflowId: string;
  runId: string;
  read: { isTerminal: boolean; canSignal: boolean; awaited: readonly string[] } | null;
}

/** The signal names a run awaits: its waits folded from the history read, then describe's `wait_reason`. */
export function runAwaitedNames(events: readonly HistoryEventInput[], waitReason: string | null | undefined): string[] {
  const fold = new WaitFold();
  for (const event of toViewEvents(events)) fold.add(event);
  return awaitedSignalNames(fold.waits(), waitReason);
}

/** The names the open, signal-able runs await, most-awaited first (then by name), with how many await each. */
export function batchAwaitedNames(runs: readonly SignalRunInput[]): { name: string; runs: number }[] {
  const counts = new Map<string, number>();
  for (const run of runs) {
    if (!run.read || run.read.isTerminal || !run.read.canSignal) continue;
    for (const name of run.read.awaited) counts.set(name, (counts.get(name) ?? 0) + 1);
  }
  return [...counts.entries()]
    .map(([name, count]) => ({ name, runs: count }))
    .sort((a, b) => b.runs - a.runs || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

export function classifyForSignal(name: string, run: SignalRunInput): SignalBucket {
  if (!run.read) return "skip_unreadable";
  if (run.read.isTerminal) return "skip_closed";
  if (!run.read.canSignal) return "skip_not_allowed";
  // Names are compared exactly, as the engine matches them.
  return run.read.awaited.includes(name.trim()) ? "awaited" : "unawaited";
}

export interface SignalPlannedRun {
  workflowId: string;
  runId: string;
  bucket: SignalBucket;
  /** The names this run awaits (for "awaits reject instead"). */
  awaited: readonly string[];
}

export interface SignalPlan {
  name: string;
  runs: SignalPlannedRun[];
  counts: Readonly<Record<SignalBucket, number>>;
  /** Runs the signal goes to: open and allowed, whether or not they await the name. */
  sendCount: number;
}

/** Runs a signal goes to: a run that does not await the name still gets it (recorded, not awaited). */
export function isSignalSend(bucket: SignalBucket): boolean {
  return bucket === "awaited" || bucket === "unawaited";
}

export function signalBatchPlan(name: string, runs: readonly SignalRunInput[]): SignalPlan {
  const counts: Record<SignalBucket, number> = {
    awaited: 0,
    unawaited: 0,
    skip_closed: 0,
    skip_not_allowed: 0,
    skip_unreadable: 0,
  };
  const planned = runs.map((run): SignalPlannedRun => {
    const bucket = classifyForSignal(name, run);
    counts[bucket] += 1;
    return { workflowId: run.workflowId, runId: run.runId, bucket, awaited: run.read?.awaited ?? [] };
  });
  return { name: name.trim(), runs: planned, counts, sendCount: counts.awaited + counts.unawaited };
}

/**
 * The history sequence of the SignalReceived that recorded the accepted command, or null while it is
 * not in the events read so far (the same proof as the single-run confirmation).
 */
export function recordedSignalSequence(commandId: string | null, events: readonly ObservedEvent[]): number | null {
  const [recorded] = confirmationSteps({ action: "signal", commandId, outcome: null }, { events });
  return recorded?.status === "done" ? recorded.sequence : null;
}

/** One sent run re-read: whether the signal is recorded, and the names it awaits after reading that far. */
export interface SignalFollowUpRead {
  recorded: boolean;
  /** Open awaited names from waits folded through the recorded event (meaningful once recorded). */
  awaited: readonly string[];
}

export interface SignalBatchOutcome {
  sent: number;
  accepted: number;
  rejected: number;
  errors: number;
  /** Accepted and in history, and the run no longer awaits the name. */
  recordedDone: number;
  /** Accepted and in history, but the run still awaits the name (another wait for it opened, or it was not awaited). */
  recordedStillWaiting: number;
  /** Accepted, not (yet) seen in history, or the run could not be re-read. */
  pending: number;
  /** Every accepted signal is in history: nothing more to wait for. */
  settled: boolean;
}

export function signalBatchOutcome(
  name: string,
  sends: readonly SendResult[],
  followUps: readonly (SignalFollowUpRead | null)[],
): SignalBatchOutcome {
  let accepted = 0;
  let recordedDone = 0;
  let recordedStillWaiting = 0;
  let pending = 0;
  sends.forEach((send, index) => {
    if (send.kind !== "accepted") return;
    accepted += 1;
    const follow = followUps[index] ?? null;
    if (!follow?.recorded) pending += 1;
    else if (follow.awaited.includes(name)) recordedStillWaiting += 1;
    else recordedDone += 1;
  });
  return {
    sent: sends.length,
    accepted,
    rejected: sends.filter((send) => send.kind === "rejected").length,
    errors: sends.filter((send) => send.kind === "error").length,
    recordedDone,
    recordedStillWaiting,
    pending,
    settled: pending === 0,
  };
}
