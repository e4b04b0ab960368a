/**
 * The live pulse's connection state, as the definition screen shows it: "checking…" while frames
 * arrive but the engine's interval is not known yet (so a hang could not be told), "live" while frames
 * arrive on a known beat,
 * "reconnecting…" right after the stream dropped, "stale since HH:MM:SS" once it stayed down longer
 * than STALE_AFTER_MS. Pure: the caller feeds events with the time they happened (an injected clock),
 * and asks {@link reconnectDelayMs} how long to wait before the next attempt.
 */

/** A stream that stays down this long after the drop is shown as stale, not as reconnecting. */
export const STALE_AFTER_MS = 5_000;
/**
 * No frame for this long is a drop even if the connection looks open (a hung engine or proxy): four
 * of the engine's default 5 s intervals. Only used while "checking" (interval unknown), never "live".
 */
export const SILENCE_MS = 20_000;
/** Once the engine's own interval is known, a frame is overdue after two of them plus this slack. */
const OVERDUE_SLACK_MS = 500;
const MIN_SILENCE_MS = 2_000;
const MAX_RECONNECT_DELAY_MS = 15_000;

export type PulsePhase = "connecting" | "checking" | "live" | "reconnecting" | "stale" | "failed";

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
  /** The gap between the last two frames of the engine's stream: its interval, as observed. */
  readonly frameGapMs: number | null;
  /** When the last frame of the engine's stream arrived on this connection; null after a drop or an opening. */
  readonly beatAt: number | null;
}

export type PulseEvent =
  /**
   * `opening`: the connection's first frame, the relay's plain snapshot read on demand
   * (lib/server/kikwiflow/pulse-relay.ts), not on the engine's beat, so no gap to or from it is the interval.
   */
  | { readonly type: "frame"; readonly at: number; readonly opening?: boolean }
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
  beatAt: null,
};

export function pulseReducer(state: PulseState, event: PulseEvent): PulseState {
  if (state.phase === "failed") return state;
  switch (event.type) {
    case "frame": {
      // Only two beats of one stream measure the interval: not a reconnect's pause, and not the
      // opening snapshot → first beat (a fresh engine loop sends at once, a running one mid-interval).
      const gap = !event.opening && state.beatAt !== null ? event.at - state.beatAt : null;
      const frameGapMs = gap !== null && gap > 0 ? gap : state.frameGapMs;
      return {
        // Live only on a known beat: without it a hang would read "live" for SILENCE_MS (issue 38).
        phase: frameGapMs === null ? "checking" : "live",
        lastFrameAt: event.at,
        droppedAt: null,
        attempts: 0,
        problem: null,
        frameGapMs,
        beatAt: event.opening ? null : event.at,
      };
    }
    case "dropped":
      return {
        ...state,
        beatAt: null,
        // A drop while already down keeps the first drop's time: that is when the data went stale.
        phase: state.phase === "stale" ? "stale" : "reconnecting",
        droppedAt: state.droppedAt ?? event.at,
        attempts: state.attempts + 1,
        problem: event.problem ?? null,
      };
    case "failed":
      return {
        ...state,
        beatAt: null,
        phase: "failed",
        droppedAt: state.droppedAt ?? event.at,
        problem: event.problem,
      };
    case "tick":
      return tick(state, event.now);
  }
}

/**
 * How long without a frame still counts as live: two of the engine's observed intervals (plus slack),
 * so a dead or hung engine stops reading "live" within about two intervals; SILENCE_MS while
 * "checking" (no interval seen yet).
 */
export function silenceAfterMs(state: PulseState): number {
  if (state.frameGapMs === null) return SILENCE_MS;
  return Math.min(SILENCE_MS, Math.max(MIN_SILENCE_MS, 2 * state.frameGapMs + OVERDUE_SLACK_MS));
}

/** Counts are shown while the definition is known to the engine: a 404 (it forgot it) takes them away. */
export function countsShown(state: PulseState): boolean {
  return state.phase !== "failed";
}

function receiving(phase: PulsePhase): boolean {
  return phase === "live" || phase === "checking";
}

function tick(state: PulseState, now: number): PulseState {
  if (receiving(state.phase) && state.lastFrameAt !== null && now - state.lastFrameAt >= silenceAfterMs(state)) {
    return { ...state, phase: "reconnecting", droppedAt: now, beatAt: null };
  }
  if (state.phase === "reconnecting" && state.droppedAt !== null && now - state.droppedAt >= STALE_AFTER_MS) {
    return { ...state, phase: "stale" };
  }
  return state;
}

/** True when the current connection should be dropped and reopened (the silence rule fired). */
export function silenced(before: PulseState, after: PulseState): boolean {
  return receiving(before.phase) && after.phase === "reconnecting";
}

/** Back-off before the next attempt: 1 s, 2 s, 4 s, … capped at 15 s. */
export function reconnectDelayMs(state: PulseState): number {
  return Math.min(1_000 * 2 ** Math.max(state.attempts - 1, 0), MAX_RECONNECT_DELAY_MS);
}
