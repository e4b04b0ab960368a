import { epochMs } from "./events";

// Apart from waits.ts so the run header (first-load JS) does not pull in the wait fold and its English summaries.
/** A derived wait, or the export's: what its deadline needs. */
export interface WaitDeadlineInput {
  kind: string;
  status: string;
  deadline_at?: string | null;
}

export interface WaitDueInput {
  /** debug `execution.wait_kind` / `next_scheduled_event.wait_deadline_at`: known at first paint. */
  waitKind?: string | null;
  waitDeadlineAt?: string | null;
  /** Waits derived from the whole history, once read: their open ones' deadlines. */
  waits?: readonly WaitDeadlineInput[] | null;
}

export interface WaitDue {
  kind: string | null;
  /** The server's timestamp, to be shown in the chosen time zone. */
  dueAt: string;
  /** How long ago it was due; null while the deadline is still ahead. */
  overdueMs: number | null;
}

/**
 * When the run's current wait is due and, past it, how late it is ("due 15:02:30 · overdue by
 * 4 min"): debug's wait deadline first, else the earliest deadline among the open derived waits.
 * Only a deadline the server recorded counts; without one this says nothing rather than guess.
 */
export function waitDue(input: WaitDueInput, now: number): WaitDue | null {
  const fromDebug = epochMs(input.waitDeadlineAt ?? null);
  if (fromDebug !== null && input.waitDeadlineAt)
    return due(input.waitKind ?? null, input.waitDeadlineAt, fromDebug, now);
  let earliest: { wait: WaitDeadlineInput; at: number } | null = null;
  for (const wait of input.waits ?? []) {
    if (wait.status !== "open" || !wait.deadline_at) continue;
    const at = epochMs(wait.deadline_at);
    if (at !== null && (earliest === null || at < earliest.at)) earliest = { wait, at };
  }
  return earliest ? due(earliest.wait.kind, earliest.wait.deadline_at ?? "", earliest.at, now) : null;
}

function due(kind: string | null, dueAt: string, at: number, now: number): WaitDue {
  return { kind, dueAt, overdueMs: now > at ? now - at : null };
}
