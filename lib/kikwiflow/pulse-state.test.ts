import { describe, expect, it } from "vitest";
import {
  INITIAL_PULSE_STATE,
  type PulseEvent,
  type PulseState,
  pulseReducer,
  reconnectDelayMs,
  SILENCE_MS,
  STALE_AFTER_MS,
  countsShown,
  silenceAfterMs,
  silenced,
} from "./pulse-state";

const T0 = Date.UTC(2026, 11, 3, 11, 0, 0);
const run = (events: PulseEvent[], from: PulseState = INITIAL_PULSE_STATE) => events.reduce(pulseReducer, from);

describe("pulse connection state", () => {
  it("is live once two frames of the engine's stream showed its interval, and keeps the time of the last one", () => {
    const state = run([
      { type: "frame", at: T0, opening: true },
      { type: "frame", at: T0 + 1_000 },
      { type: "frame", at: T0 + 2_000 },
    ]);
    expect(state).toMatchObject({ phase: "live", lastFrameAt: T0 + 2_000, droppedAt: null, attempts: 0 });
  });

  it("reconnects right after a drop, turns stale after STALE_AFTER_MS, live again on a frame", () => {
    const dropped = run([
      { type: "frame", at: T0 },
      { type: "dropped", at: T0 + 2_000 },
    ]);
    expect(dropped).toMatchObject({ phase: "reconnecting", droppedAt: T0 + 2_000, lastFrameAt: T0, attempts: 1 });
    expect(run([{ type: "tick", now: T0 + 2_000 + STALE_AFTER_MS - 1 }], dropped).phase).toBe("reconnecting");
    const stale = run([{ type: "tick", now: T0 + 2_000 + STALE_AFTER_MS }], dropped);
    expect(stale).toMatchObject({ phase: "stale", droppedAt: T0 + 2_000 });
    // Further failed attempts keep the first drop's time and stay stale.
    const again = run([{ type: "dropped", at: T0 + 20_000, problem: "busy" }], stale);
    expect(again).toMatchObject({ phase: "stale", droppedAt: T0 + 2_000, attempts: 2, problem: "busy" });
    // Frames again, but no beat measured yet: receiving, not yet "live".
    expect(run([{ type: "frame", at: T0 + 30_000, opening: true }], again)).toMatchObject({
      phase: "checking",
      droppedAt: null,
      attempts: 0,
      problem: null,
    });
  });

  it("treats a silent open stream as a drop after SILENCE_MS, and says to reopen it", () => {
    const live = run([{ type: "frame", at: T0 }]);
    expect(run([{ type: "tick", now: T0 + SILENCE_MS - 1 }], live).phase).toBe("checking");
    const quiet = run([{ type: "tick", now: T0 + SILENCE_MS }], live);
    expect(quiet).toMatchObject({ phase: "reconnecting", droppedAt: T0 + SILENCE_MS });
    expect(silenced(live, quiet)).toBe(true);
    expect(silenced(quiet, run([{ type: "tick", now: T0 + SILENCE_MS + 1 }], quiet))).toBe(false);
  });

  it("stops on a refusal retrying cannot fix, whatever comes after", () => {
    const failed = run([
      { type: "failed", at: T0, problem: "unknown definition" },
      { type: "frame", at: T0 + 1 },
      { type: "tick", now: T0 + 60_000 },
    ]);
    expect(failed).toMatchObject({ phase: "failed", problem: "unknown definition", droppedAt: T0 });
  });

  it("backs off 1, 2, 4, 8 s, capped at 15 s", () => {
    let state = INITIAL_PULSE_STATE;
    const delays: number[] = [];
    for (let i = 0; i < 6; i++) {
      state = pulseReducer(state, { type: "dropped", at: T0 + i });
      delays.push(reconnectDelayMs(state));
    }
    expect(delays).toEqual([1_000, 2_000, 4_000, 8_000, 15_000, 15_000]);
  });
});

describe("live only while frames arrive (issue 38 item 6)", () => {
  it("learns the engine's interval and stops saying live two intervals after the last frame", () => {
    const live = run([
      { type: "frame", at: T0 },
      { type: "frame", at: T0 + 1_000 },
      { type: "frame", at: T0 + 2_000 },
    ]);
    expect(live.frameGapMs).toBe(1_000);
    expect(silenceAfterMs(live)).toBe(2_500);
    expect(pulseReducer(live, { type: "tick", now: T0 + 4_000 }).phase).toBe("live");
    // The engine died after its frame at T0 + 2 s: 2.5 s later the badge no longer says live.
    const after = pulseReducer(live, { type: "tick", now: T0 + 4_500 });
    expect(after).toMatchObject({ phase: "reconnecting", droppedAt: T0 + 4_500 });
    expect(silenced(live, after)).toBe(true);
  });

  it("does not learn a reconnect's pause as the interval, and keeps the 20 s bound before any gap", () => {
    const reconnected = run([
      { type: "frame", at: T0 },
      { type: "dropped", at: T0 + 500 },
      { type: "frame", at: T0 + 9_000 },
    ]);
    expect(reconnected.frameGapMs).toBeNull();
    expect(silenceAfterMs(reconnected)).toBe(SILENCE_MS);
  });

  it("says 'checking', never live, after one frame: the interval is unknown, so a hang cannot be told yet", () => {
    const opened = run([{ type: "frame", at: T0, opening: true }]);
    expect(opened).toMatchObject({ phase: "checking", lastFrameAt: T0, frameGapMs: null });
    // The engine hung right after that frame: the screen never claimed live while it did not know.
    const quiet = run([{ type: "tick", now: T0 + SILENCE_MS - 1 }], opened);
    expect(quiet.phase).toBe("checking");
    const dropped = run([{ type: "tick", now: T0 + SILENCE_MS }], quiet);
    expect(dropped).toMatchObject({ phase: "reconnecting", droppedAt: T0 + SILENCE_MS });
    expect(silenced(quiet, dropped)).toBe(true);
  });

  it("does not take the relay's opening snapshot → first stream frame as the interval (a 5 s engine)", () => {
    // The relay's first frame is the plain snapshot; a fresh engine loop sends its first frame at once.
    const two = run([
      { type: "frame", at: T0, opening: true },
      { type: "frame", at: T0 + 30 },
    ]);
    expect(two).toMatchObject({ phase: "checking", frameGapMs: null });
    // Not dropped 2 s later while the engine is merely between two 5 s beats.
    expect(run([{ type: "tick", now: T0 + 4_000 }], two).phase).toBe("checking");
    const live = run([{ type: "frame", at: T0 + 5_030 }], two);
    expect(live).toMatchObject({ phase: "live", frameGapMs: 5_000 });
    expect(run([{ type: "tick", now: T0 + 5_030 + 10_000 }], live).phase).toBe("live");
    expect(run([{ type: "tick", now: T0 + 5_030 + 10_500 }], live).phase).toBe("reconnecting");
  });

  it("is live from the opening frame of a reopened stream once the interval is known, and keeps that interval", () => {
    const live = run([
      { type: "frame", at: T0, opening: true },
      { type: "frame", at: T0 + 10 },
      { type: "frame", at: T0 + 1_010 },
      // The relay's lifetime ended cleanly; the next connection opens with its plain snapshot.
      { type: "frame", at: T0 + 1_400, opening: true },
      { type: "frame", at: T0 + 1_420 },
    ]);
    expect(live).toMatchObject({ phase: "live", frameGapMs: 1_000, lastFrameAt: T0 + 1_420 });
  });

  it("takes the counts away once the engine no longer knows the definition (404)", () => {
    const live = run([{ type: "frame", at: T0 }]);
    expect(countsShown(live)).toBe(true);
    expect(countsShown(run([{ type: "dropped", at: T0 + 1 }], live))).toBe(true);
    expect(countsShown(run([{ type: "failed", at: T0 + 1, problem: "unknown definition" }], live))).toBe(false);
  });
});
