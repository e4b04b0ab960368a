import type { DerivedWait } from "./waits";

/**
 * Which signal names a run awaits, and whether a typed name is one of them (issue 15 item 4: a
 * mistyped `aprove` was "confirmed" while the run kept waiting for `approve`). Two sources, as the
 * server gives them: the open signal waits derived from history (waits.ts, the engine's SignalWaits
 * fold) and describe's `wait_reason`, which the engine writes as "Waiting for signal {name}" or
 * "Waiting for signal {name} or timeout" (durable-workflow/workflow@8dc90d649ec00f92291fa6377c45fac60ebe5de0:
 * src/V2/Support/RunSummaryProjector.php). "Waiting to apply signal {name}" names a signal already
 * received, so it awaits no name.
 */

const WAIT_REASON = /^Waiting for signal (.+?)(?: or timeout)?\.?$/;

/** The name in describe's `wait_reason`, when it says the run waits for a signal. */
export function signalNameFromWaitReason(waitReason: string | null | undefined): string | null {
  if (!waitReason) return null;
  const match = WAIT_REASON.exec(waitReason.trim());
  return match?.[1] ?? null;
}

/** Open signal waits' names (oldest first), then describe's, without repeats. */
export function awaitedSignalNames(
  waits: readonly Pick<DerivedWait, "kind" | "status" | "target_name">[] | null | undefined,
  waitReason?: string | null,
): string[] {
  const names: string[] = [];
  for (const wait of waits ?? []) {
    if (wait.kind === "signal" && wait.status === "open" && wait.target_name) names.push(wait.target_name);
  }
  const described = signalNameFromWaitReason(waitReason);
  if (described) names.push(described);
  return [...new Set(names)];
}

/** Levenshtein distance (insert, delete, substitute: 1 each); names are short, so O(n·m) is fine. */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitute = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current[j] = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitute);
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

/** The awaited name nearest to what was typed (case-insensitive distance; the first on a tie). */
export function closestName(typed: string, names: readonly string[]): string | null {
  let best: string | null = null;
  let bestDistance = Number.POSITIVE_INFINITY;
  const needle = typed.toLowerCase();
  for (const name of names) {
    const distance = editDistance(needle, name.toLowerCase());
    if (distance < bestDistance) {
      best = name;
      bestDistance = distance;
    }
  }
  return best;
}

export type SignalNameCheck =
  /** Nothing typed yet. */
  | { kind: "empty" }
  /** The run awaits exactly this name. */
  | { kind: "awaited" }
  /** The run awaits other names; `closest` is the one to suggest. */
  | { kind: "unawaited"; closest: string }
  /** The run awaits no signal (a workflow may still handle it, e.g. with a signal handler). */
  | { kind: "none_awaited" };

/** What the dialog says of the typed name before anything is sent. Names are compared exactly, as the engine does. */
export function checkSignalName(typed: string, awaited: readonly string[]): SignalNameCheck {
  const name = typed.trim();
  if (!name) return { kind: "empty" };
  if (awaited.includes(name)) return { kind: "awaited" };
  const closest = closestName(name, awaited);
  return closest === null ? { kind: "none_awaited" } : { kind: "unawaited", closest };
}

export type SignalFollowUp =
  /** The waits read so far end before the recorded signal: not known yet. */
  | { kind: "checking" }
  /** After the signal, the run still has these open signal waits. */
  | { kind: "still_waiting"; names: string[] }
  | { kind: "not_waiting" };

/**
 * After a signal is durably recorded at `recordedSequence`: does the run still wait for a signal?
 * Answered from waits derived from history up to `readThrough` only once that covers the recorded
 * event (the engine closes the matching wait on SignalReceived, so a mistyped name leaves it open).
 */
export function signalFollowUp(
  waits: readonly Pick<DerivedWait, "kind" | "status" | "target_name">[] | null | undefined,
  readThrough: number | null | undefined,
  recordedSequence: number | null,
): SignalFollowUp {
  if (!waits || recordedSequence === null || readThrough === null || readThrough === undefined)
    return { kind: "checking" };
  if (readThrough < recordedSequence) return { kind: "checking" };
  const names = awaitedSignalNames(waits);
  return names.length > 0 ? { kind: "still_waiting", names } : { kind: "not_waiting" };
}
