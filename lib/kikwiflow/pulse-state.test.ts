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
  it("is live from the first frame and keeps the time of the last one", () => {
    const state = run([
      { type: "frame", at: T0 },
      { type: "frame", at: T0 + 1_000 },
    ]);
    expect(state).toMatchObject({ phase: "live", lastFrameAt: T0 + 1_000, droppedAt: null, attempts: 0 });
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
    expect(run([{ type: "frame", at: T0 + 30_000 }], again)).toMatchObject({
      phase: "live",
      droppedAt: null,
      attempts: 0,
      problem: null,
    });
  });

  it("treats a silent open stream as a drop after SILENCE_MS, and says to reopen it", () => {
    const live = run([{ type: "frame", at: T0 }]);
    expect(run([{ type: "tick", now: T0 + SILENCE_MS - 1 }], live).phase).toBe("live");
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

  it("takes the counts away once the engine no longer knows the definition (404)", () => {
    const live = run([{ type: "frame", at: T0 }]);
    expect(countsShown(live)).toBe(true);
    expect(countsShown(run([{ type: "dropped", at: T0 + 1 }], live))).toBe(true);
    expect(countsShown(run([{ type: "failed", at: T0 + 1, problem: "unknown definition" }], live))).toBe(false);
  });
});
