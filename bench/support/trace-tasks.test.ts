import { describe, expect, test } from "vitest";
import type { TraceEvent } from "./trace-tasks";
import { describeTask, mainTasks, navigationOrigin } from "./trace-tasks";

const MAIN = { pid: 7, tid: 1 };
const OTHER = { pid: 7, tid: 2 };

function meta(tid: number, name: string): TraceEvent {
  return { name: "thread_name", ph: "M", ts: 0, pid: 7, tid, args: { name } };
}

function x(name: string, ts: number, dur: number, extra: Partial<TraceEvent> = {}): TraceEvent {
  return { name, ph: "X", ts: ts * 1000, dur: dur * 1000, ...MAIN, ...extra };
}

function nav(ts: number, url: string): TraceEvent {
  return { name: "navigationStart", ph: "R", ts: ts * 1000, ...MAIN, args: { data: { documentLoaderURL: url } } };
}

const base = [meta(1, "CrRendererMain"), meta(2, "Compositor")];

describe("mainTasks", () => {
  test("times are from the document's navigation start, not the blank page's", () => {
    const events = [...base, nav(100, ""), nav(400, "http://127.0.0.1:3000/runs/r"), x("RunTask", 450, 60)];
    expect(navigationOrigin(events)).toBe(400_000);
    expect(mainTasks(events)[0]?.at).toBe(50);
  });

  test("a task's CPU is its thread time; its blocked time merges nested calls and counts font lookups", () => {
    const events = [
      ...base,
      nav(0, "http://h/runs/r"),
      x("RunTask", 10, 120, { tdur: 22_000 }),
      x("Layout", 12, 110),
      // A font lookup: a "fonts" event around the blocking call.
      x("WebSandboxSupportLinux::GetWebFontRenderStyleForStrike", 20, 30, { cat: "fonts" }),
      x("ScopedBlockingCallWithBaseSyncPrimitives", 21, 28, { cat: "base" }),
      // A call inside a call counts once.
      x("ScopedBlockingCallWithBaseSyncPrimitives", 25, 10, { cat: "base" }),
      // A blocking call that is not a font lookup.
      x("ScopedBlockingCallWithBaseSyncPrimitives", 60, 5, { cat: "base" }),
      // Another thread's blocking call is not the main thread's.
      x("ScopedBlockingCallWithBaseSyncPrimitives", 70, 40, { cat: "base", ...OTHER }),
      x("RunTask", 200, 10, { tdur: 9_000 }),
    ];
    const [long, short] = mainTasks(events);
    expect(long).toMatchObject({ at: 10, wallMs: 120, cpuMs: 22, blockedMs: 33, syncCalls: 2, fontCalls: 1 });
    expect(short).toMatchObject({ wallMs: 10, cpuMs: 9, blockedMs: 0, syncCalls: 0 });
    expect(describeTask(long!)).toBe("120.0 ms wall, 22.0 ms CPU, 33.0 ms in 2 synchronous calls (1 font lookups)");
    expect(mainTasks(events, 50)).toHaveLength(1);
  });

  test("tasks on other threads are not the main thread's", () => {
    const events = [...base, x("RunTask", 0, 300, { ...OTHER, tdur: 300_000 })];
    expect(mainTasks(events)).toEqual([]);
  });

  test("another renderer's main thread (a chrome:// page of the browser) is not the page's", () => {
    const webui = { pid: 9, tid: 1 };
    const events = [
      ...base,
      { ...meta(1, "CrRendererMain"), pid: 9 },
      nav(0, "http://h/runs/r"),
      x("RunTask", 10, 40, { tdur: 30_000 }),
      x("RunTask", 20, 250, { ...webui, tdur: 200_000 }),
    ];
    expect(mainTasks(events).map((t) => t.wallMs)).toEqual([40]);
  });
});
