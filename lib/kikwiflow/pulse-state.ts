/**
 * The live pulse's connection state, as the definition screen shows it: "live" while frames arrive,
 * "reconnecting…" right after the stream dropped, "stale since HH:MM:SS" once it stayed down longer
 * than STALE_AFTER_MS. Pure: the caller feeds events with the time they happened (an injected clock),
 * and asks {@link reconnectDelayMs} how long to wait before the next attempt.
 */

/** A stream that stays down this long after the drop is shown as stale, not as reconnecting. */
export const STALE_AFTER_MS = 5_000;
/**
 * No frame for this long is a drop even if the connection looks open (a hung engine or proxy): four
 * of the engine's default 5 s intervals.
 */
export const SILENCE_MS = 20_000;
/** Once the engine's own interval is known, a frame is overdue after two of them plus this slack. */
const OVERDUE_SLACK_MS = 500;
const MIN_SILENCE_MS = 2_000;
const MAX_RECONNECT_DELAY_MS = 15_000;

export type PulsePhase = "connecting" | "live" | "reconnecting" | "stale" | "failed";

export interface PulseState {
  readonly phase: PulsePhase;
  /** When the last frame arrived (epoch ms), null before the first. */
  readonly lastFrameAt: number | null;
  /** When the stream dropped (epoch ms) while not live; null while live or before any drop. */
  readonly droppedAt: number | null;
  /** Failed connection attempts since the last frame (drives the back-off). */
  readonly attempts: number;
  /** The console's sentence for the last refusal (503 relay busy, 404 unknown definition), if any. */
  readonly problem: string | null;
  /** The gap between the last two frames of one live stream: the engine's interval, as observed. */
  readonly frameGapMs: number | null;
}

export type PulseEvent =
  | { readonly type: "frame"; readonly at: number }
  /** The stream ended, the network failed, or the relay refused for now (503). */
  | { readonly type: "dropped"; readonly at: number; readonly problem?: string }
  /** A refusal retrying cannot fix (404: the definition is unknown). */
  | { readonly type: "failed"; readonly at: number; readonly problem: string }
  | { readonly type: "tick"; readonly now: number };

export const INITIAL_PULSE_STATE: PulseState = {
  phase: "connecting",
  lastFrameAt: null,
  droppedAt: null,
  attempts: 0,
  problem: null,
  frameGapMs: null,
};

export function pulseReducer(state: PulseState, event: PulseEvent): PulseState {
  if (state.phase === "failed") return state;
  switch (event.type) {
    case "frame": {
      // Only a gap inside one live stream measures the engine's interval, not a reconnect's pause.
      const gap = state.phase === "live" && state.lastFrameAt !== null ? event.at - state.lastFrameAt : null;
      const frameGapMs = gap !== null && gap > 0 ? gap : state.frameGapMs;
      return { phase: "live", lastFrameAt: event.at, droppedAt: null, attempts: 0, problem: null, frameGapMs };
    }
    case "dropped":
      return {
        ...state,
        // A drop while already down keeps the first drop's time: that is when the data went stale.
        phase: state.phase === "stale" ? "stale" : "reconnecting",
        droppedAt: state.droppedAt ?? event.at,
        attempts: state.attempts + 1,
        problem: event.problem ?? null,
      };
    case "failed":
      return { ...state, phase: "failed", droppedAt: state.droppedAt ?? event.at, problem: event.problem };
    case "tick":
      return tick(state, event.now);
  }
}

/**
 * How long without a frame still counts as live: two of the engine's observed intervals (plus slack),
 * so a dead or hung engine stops reading "live" within about two intervals; SILENCE_MS until an
 * interval was seen.
 */
export function silenceAfterMs(state: PulseState): number {
  if (state.frameGapMs === null) return SILENCE_MS;
  return Math.min(SILENCE_MS, Math.max(MIN_SILENCE_MS, 2 * state.frameGapMs + OVERDUE_SLACK_MS));
}

/** Counts are shown while the definition is known to the engine: a 404 (it forgot it) takes them away. */
export function countsShown(state: PulseState): boolean {
  return state.phase !== "failed";
}

function tick(state: PulseState, now: number): PulseState {
  if (state.phase === "live" && state.lastFrameAt !== null && now - state.lastFrameAt >= silenceAfterMs(state)) {
    return { ...state, phase: "reconnecting", droppedAt: now };
  }
  if (state.phase === "reconnecting" && state.droppedAt !== null && now - state.droppedAt >= STALE_AFTER_MS) {
    return { ...state, phase: "stale" };
  }
  return state;
}

/** True when the current connection should be dropped and reopened (the silence rule fired). */
export function silenced(before: PulseState, after: PulseState): boolean {
  return before.phase === "live" && after.phase === "reconnecting";
}

/** Back-off before the next attempt: 1 s, 2 s, 4 s, … capped at 15 s. */
export function reconnectDelayMs(state: PulseState): number {
  return Math.min(1_000 * 2 ** Math.max(state.attempts - 1, 0), MAX_RECONNECT_DELAY_MS);
}
