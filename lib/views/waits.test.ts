import { describe, expect, it } from "vitest";
import { createTranslator } from "next-intl";
import en from "@/messages/en.json";
import ja from "@/messages/ja.json";
import type { ViewEvent } from "./events";
import type { WaitSummaryKey } from "./waits";
import { WAIT_SUMMARIES_EN, WaitFold, englishWaitSummary } from "./waits";
import { waitDue } from "./waits-due";

const enT = createTranslator({ locale: "en", messages: en, namespace: "run.waits.summaries" });

function event(sequence: number, type: string, payload: Record<string, unknown> = {}): ViewEvent {
  return { sequence, type, recordedAt: `2026-12-01T10:00:0${sequence % 10}.000Z`, payload } as ViewEvent;
}

describe("wait summaries", () => {
  // The catalog's English (ICU, rendered by next-intl as the screen does) and the engine's English
  // that `summary` keeps must say the same thing, plural seconds included.
  it.each(Object.keys(WAIT_SUMMARIES_EN) as WaitSummaryKey[])("en.json words %s as the engine does", (key) => {
    for (const seconds of [1, 30]) {
      const values = { name: "approve", seconds };
      expect(enT(key, values)).toBe(englishWaitSummary({ key, values }));
    }
  });

  it("says 1 second and 30 seconds as the engine's durationLabel does", () => {
    expect(englishWaitSummary({ key: "signal.openTimeout", values: { name: "approve", seconds: 1 } })).toBe(
      "Waiting for signal approve or timeout after 1 second.",
    );
    expect(englishWaitSummary({ key: "condition.timedOut", values: { seconds: 30 } })).toBe(
      "Condition wait timed out after 30 seconds.",
    );
  });

  it("hands each derived wait its catalog key, so another locale words it", () => {
    const fold = new WaitFold();
    fold.add(event(1, "SignalWaitOpened", { signal_wait_id: "sig-1", signal_name: "approve", timeout_seconds: 60 }));
    fold.add(event(2, "TimerScheduled", { timer_id: "t-1", sequence: 2 }));
    fold.add(event(3, "TimerFired", { timer_id: "t-1", sequence: 2 }));
    const waits = fold.waits();
    const signal = waits.find((wait) => wait.kind === "signal");
    expect(signal?.summary_message).toEqual({ key: "signal.openTimeout", values: { name: "approve", seconds: 60 } });
    expect(signal?.summary).toBe("Waiting for signal approve or timeout after 60 seconds.");
    const jaT = createTranslator({ locale: "ja", messages: ja, namespace: "run.waits.summaries" });
    const { key, values } = signal!.summary_message!;
    expect(jaT(key, values)).toBe("シグナル approve または 60 秒 後のタイムアウトを待っています。");
    expect(waits.find((wait) => wait.kind === "timer")?.summary_message?.key).toBe("timer.fired");
  });

  it("words a run that ended under an open signal wait by how it ended", () => {
    const fold = new WaitFold();
    fold.add(event(1, "SignalWaitOpened", { signal_wait_id: "sig-1", signal_name: "approve" }));
    fold.add(event(2, "WorkflowTerminated"));
    const [wait] = fold.waits();
    expect(wait?.summary_message?.key).toBe("ended.signal.terminated");
    expect(wait?.summary).toBe("Signal wait ended when the run was terminated.");
  });
});

describe("waitDue", () => {
  const now = Date.parse("2026-12-07T15:06:30Z");

  it("says how late an overdue timer is, from debug's wait deadline", () => {
    expect(waitDue({ waitKind: "timer", waitDeadlineAt: "2026-12-07T15:02:30.000000Z" }, now)).toEqual({
      kind: "timer",
      dueAt: "2026-12-07T15:02:30.000000Z",
      overdueMs: 240_000,
    });
  });

  it("gives a deadline still ahead with no lateness", () => {
    expect(waitDue({ waitKind: "signal", waitDeadlineAt: "2026-12-07T15:10:00Z" }, now)).toEqual({
      kind: "signal",
      dueAt: "2026-12-07T15:10:00Z",
      overdueMs: null,
    });
  });

  it("falls back to the open derived wait's deadline, the earliest first", () => {
    const wait = (id: string, status: string, deadline: string | null) => ({
      id,
      kind: "timer",
      sequence: 1,
      status,
      summary: null,
      opened_at: null,
      deadline_at: deadline,
      resolved_at: null,
      target_name: null,
    });
    const waits = [
      wait("a", "resolved", "2026-12-07T14:00:00Z"),
      wait("b", "open", "2026-12-07T15:05:30Z"),
      wait("c", "open", "2026-12-07T15:04:30Z"),
    ];
    expect(waitDue({ waitKind: null, waitDeadlineAt: null, waits }, now)).toEqual({
      kind: "timer",
      dueAt: "2026-12-07T15:04:30Z",
      overdueMs: 120_000,
    });
  });

  it("never guesses: no deadline known, or an unreadable one, says nothing", () => {
    expect(waitDue({ waitKind: "timer", waitDeadlineAt: null }, now)).toBeNull();
    expect(waitDue({ waitKind: "timer", waitDeadlineAt: "soon" }, now)).toBeNull();
    expect(waitDue({ waitKind: "timer", waitDeadlineAt: null, waits: [] }, now)).toBeNull();
  });
});
