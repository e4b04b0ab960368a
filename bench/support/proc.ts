import { readdirSync, readFileSync } from "node:fs";

/**
 * Linux /proc readings of a process tree (the `next start` process and whatever it forks, or a
 * Chromium's renderers): CPU time and resident memory, for the run-detail bench's console-server
 * figures. Processes that vanish between the directory listing and the read are skipped.
 */

/** USER_HZ: /proc/<pid>/stat counts utime and stime in these ticks (100 on every Linux we run on). */
const CLK_TCK = 100;

function read(path: string): string | null {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return null;
  }
}

/** Fields of /proc/<pid>/stat after the command name (which may itself hold spaces and parentheses). */
function statFields(pid: number): string[] | null {
  const s = read(`/proc/${pid}/stat`);
  if (s === null) return null;
  return s.slice(s.lastIndexOf(")") + 2).split(" ");
}

function pids(): number[] {
  return readdirSync("/proc")
    .filter((d) => /^\d+$/.test(d))
    .map(Number);
}

/** `root` and every process below it. */
export function processTree(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const pid of pids()) {
    const ppid = Number(statFields(pid)?.[1] ?? -1);
    const list = children.get(ppid) ?? [];
    list.push(pid);
    children.set(ppid, list);
  }
  const out: number[] = [];
  const stack = [root];
  while (stack.length > 0) {
    const pid = stack.pop() as number;
    out.push(pid);
    stack.push(...(children.get(pid) ?? []));
  }
  return out;
}

export interface CpuReading {
  /** utime + stime of /proc/<pid>/stat, summed over the tree (10 ms resolution). */
  statMs: number;
  /** Time on CPU from /proc/<pid>/task/<tid>/schedstat, summed over every live thread (ns resolution). */
  schedMs: number;
}

function schedMs(pid: number): number {
  let ns = 0;
  let tids: string[] = [];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return 0;
  }
  for (const tid of tids) ns += Number(read(`/proc/${pid}/task/${tid}/schedstat`)?.split(" ")[0] ?? 0);
  return ns / 1e6;
}

export function treeCpu(root: number): CpuReading {
  let ticks = 0;
  let sched = 0;
  for (const pid of processTree(root)) {
    const f = statFields(pid);
    if (f === null) continue;
    // After the name: state(0) ppid(1) … utime(11) stime(12).
    ticks += Number(f[11] ?? 0) + Number(f[12] ?? 0);
    sched += schedMs(pid);
  }
  return { statMs: (ticks * 1000) / CLK_TCK, schedMs: sched };
}

function rssBytes(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(read(`/proc/${pid}/status`) ?? "");
  return m ? Number(m[1]) * 1024 : 0;
}

/** The processes of `root`'s tree whose command line matches `filter` (Chromium's renderers: /--type=renderer/). */
export function treeMatching(root: number, filter: RegExp): number[] {
  return processTree(root).filter((pid) => filter.test(read(`/proc/${pid}/cmdline`)?.replace(/\0/g, " ") ?? ""));
}

/** Resident memory summed over `list` (list once, sample often: walking /proc every 50 ms costs the bench too). */
export function rssOf(list: readonly number[]): number {
  let sum = 0;
  for (const pid of list) sum += rssBytes(pid);
  return sum;
}

/** Samples `read` every `everyMs` until stopped; stop() resolves to the largest value seen. */
export function samplePeak(read: () => number, everyMs: number): { stop: () => number } {
  let peak = read();
  const timer = setInterval(() => {
    peak = Math.max(peak, read());
  }, everyMs);
  return {
    stop: () => {
      clearInterval(timer);
      peak = Math.max(peak, read());
      return peak;
    },
  };
}
