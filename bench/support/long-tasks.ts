import type { TraceEvent } from "./trace-tasks";
import { describeTask, mainTasks, mainThreadEvents, readTrace } from "./trace-tasks";

/**
 * The long tasks of a Chrome trace written by BENCH_PROFILE (bench/support/run-visit.ts): for each
 * main-thread task over the threshold, when it ran and what took its time (its direct children by
 * duration: script calls with their function and source, style, layout, paint, GC), so a budget
 * figure like "longest main-thread task" can be traced to the code that causes it.
 *
 *   node --import tsx bench/support/long-tasks.ts <trace.json> [threshold ms, default 50]
 */

function detail(e: TraceEvent): string {
  const d = e.args?.data ?? {};
  const fn = typeof d.functionName === "string" && d.functionName !== "" ? d.functionName : null;
  const url = typeof d.url === "string" ? d.url.replace(/^.*\/_next\/static\/chunks\//, "") : null;
  const line = typeof d.lineNumber === "number" ? `:${d.lineNumber}` : "";
  const type = typeof d.type === "string" ? d.type : null;
  return [fn, url ? `${url}${line}` : null, type].filter(Boolean).join(" ");
}

/** The direct children of a task: events inside it not inside another child. */
function children(task: TraceEvent, inside: TraceEvent[]): TraceEvent[] {
  const end = task.ts + (task.dur ?? 0);
  const out: TraceEvent[] = [];
  let coveredUntil = -1;
  for (const e of inside) {
    if (e === task || e.ts < task.ts || e.ts >= end) continue;
    if (e.ts < coveredUntil) continue;
    out.push(e);
    coveredUntil = e.ts + (e.dur ?? 0);
  }
  return out;
}

interface ProfileNode {
  id: number;
  parent?: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}

/** The V8 sampling profile in the trace (ProfileChunk events): each sample's time and stack, leaf first. */
function samples(events: TraceEvent[]): { ts: number; stack: string[] }[] {
  const nodes = new Map<number, ProfileNode>();
  const out: { ts: number; stack: string[] }[] = [];
  const start = new Map<string, number>();
  for (const e of events) {
    if (e.name === "Profile") start.set(String((e as { id?: string }).id), Number(e.args?.data?.startTime ?? e.ts));
    if (e.name !== "ProfileChunk") continue;
    const id = String((e as { id?: string }).id);
    const data = (e.args?.data ?? {}) as {
      cpuProfile?: { nodes?: ProfileNode[]; samples?: number[] };
      timeDeltas?: number[];
    };
    for (const n of data.cpuProfile?.nodes ?? []) nodes.set(n.id, n);
    let ts = start.get(id) ?? e.ts;
    const deltas = data.timeDeltas ?? [];
    (data.cpuProfile?.samples ?? []).forEach((sample, i) => {
      ts += deltas[i] ?? 0;
      out.push({ ts, stack: stackOf(sample, nodes) });
    });
    start.set(id, ts);
  }
  return out;
}

function frameName(n: ProfileNode): string {
  const f = n.callFrame;
  const file = (f.url ?? "").replace(/^.*\/_next\/static\/chunks\//, "").replace(/^.*\/node_modules\//, "");
  return `${f.functionName || "(anonymous)"}${file ? ` ${file}:${f.lineNumber + 1}` : ""}`;
}

function stackOf(id: number, nodes: Map<number, ProfileNode>): string[] {
  const stack: string[] = [];
  for (let n = nodes.get(id); n; n = n.parent === undefined ? undefined : nodes.get(n.parent)) {
    if (n.callFrame.functionName !== "(root)") stack.push(frameName(n));
  }
  return stack;
}

/** The functions that took a window's samples: self (leaf) and total (anywhere on the stack). */
function attribute(all: { ts: number; stack: string[] }[], from: number, to: number): void {
  const inside = all.filter((s) => s.ts >= from && s.ts < to);
  if (inside.length === 0) return;
  const self = new Map<string, number>();
  const total = new Map<string, number>();
  for (const s of inside) {
    const leaf = s.stack[0] ?? "(idle)";
    self.set(leaf, (self.get(leaf) ?? 0) + 1);
    for (const f of new Set(s.stack)) total.set(f, (total.get(f) ?? 0) + 1);
  }
  const top = (m: Map<string, number>, n: number) =>
    [...m.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([f, c]) => `${((100 * c) / inside.length).toFixed(0)}% ${f}`);
  console.log(`    samples ${inside.length}; self: ${top(self, 6).join(" | ")}`);
  console.log(`    on stack: ${top(total, 14).join(" | ")}`);
  const react = reactWork(inside);
  if (react.size > 0) console.log(`    React (unminified builds): ${top(react, 10).join(" | ")}`);
}

/**
 * React's work by what it ran (readable only in a BREAKWATER_UNMINIFIED build): the component a
 * render sample was in (the frame React's `renderWithHooks` called) and the effect a commit sample
 * ran (the frame `commitHookEffectListMount` called), so a long render or commit names its cause.
 */
const REACT_CALLERS: [string, string][] = [
  ["renderWithHooks ", "render"],
  ["commitHookEffectListMount ", "effect"],
];
function reactWork(inside: { stack: string[] }[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const s of inside) {
    for (const [caller, kind] of REACT_CALLERS) {
      const i = s.stack.findIndex((f) => f.startsWith(caller));
      const callee = i > 0 ? s.stack[i - 1] : undefined;
      if (callee !== undefined) out.set(`${kind} ${callee}`, (out.get(`${kind} ${callee}`) ?? 0) + 1);
    }
  }
  return out;
}

function main(): void {
  const [file, thresholdArg] = process.argv.slice(2);
  if (!file) throw new Error("usage: long-tasks.ts <trace.json> [threshold ms]");
  const threshold = Number(thresholdArg ?? 50);
  const events = readTrace(file);
  const onMain = mainThreadEvents(events);
  const profile = samples(events);
  const tasks = mainTasks(events, threshold);
  console.log(`${tasks.length} main-thread tasks ≥ ${threshold} ms in ${file}`);
  for (const t of tasks) {
    const task = t.event;
    console.log(`task at ${t.at.toFixed(0)} ms: ${describeTask(t)}`);
    const parts = children(task, onMain)
      .sort((a, b) => (b.dur ?? 0) - (a.dur ?? 0))
      .slice(0, 8);
    for (const c of parts) {
      const sub = children(c, onMain)
        .sort((a, b) => (b.dur ?? 0) - (a.dur ?? 0))
        .slice(0, 3)
        .map((s) => `${s.name} ${((s.dur ?? 0) / 1000).toFixed(1)}${detail(s) ? ` (${detail(s)})` : ""}`)
        .join("; ");
      console.log(
        `  ${((c.dur ?? 0) / 1000).toFixed(1).padStart(6)} ms ${c.name}${detail(c) ? ` ${detail(c)}` : ""}${sub ? ` ⟶ ${sub}` : ""}`,
      );
    }
    attribute(profile, task.ts, task.ts + (task.dur ?? 0));
  }
}

main();
