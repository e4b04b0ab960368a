import type { Worker, WorkerList } from "@/lib/dw/schemas-fleet";
import { parseTimestamp } from "@/lib/format/time";

/**
 * The Workers screen as pure functions: the roster (the live list and, from a newer server that
 * leaves them out, the stale one), each worker's freshness by the server's own rule, its task slots
 * and process, and the columns an operator chose to see.
 */

/** Every column of the workers table, in display order; `worker` names a row and always shows. */
export const WORKER_COLUMNS = [
  "worker",
  "queue",
  "status",
  "heartbeat",
  "slots",
  "concurrency",
  "process",
  "runtime",
  "build",
  "types",
  "capabilities",
  "registered",
] as const;
export type WorkerColumn = (typeof WORKER_COLUMNS)[number];

export const DEFAULT_WORKER_COLUMNS: readonly WorkerColumn[] = [
  "worker",
  "queue",
  "status",
  "heartbeat",
  "slots",
  "process",
  "runtime",
  "build",
];

/** Where the browser keeps this person's choice (one browser profile is one person). */
export const WORKER_COLUMNS_STORAGE_KEY = "breakwater.workers.columns";

function isColumn(value: string): value is WorkerColumn {
  return (WORKER_COLUMNS as readonly string[]).includes(value);
}

/** A stored choice read back: known ids in display order, `worker` always; the default when unreadable. */
export function parseWorkerColumns(stored: string | null | undefined): WorkerColumn[] {
  if (stored === null || stored === undefined) return [...DEFAULT_WORKER_COLUMNS];
  const chosen = new Set(
    stored
      .split(",")
      .map((part) => part.trim())
      .filter(isColumn),
  );
  if (chosen.size === 0 && stored.trim() !== "") return [...DEFAULT_WORKER_COLUMNS];
  chosen.add("worker");
  return WORKER_COLUMNS.filter((column) => chosen.has(column));
}

export function serializeWorkerColumns(columns: readonly WorkerColumn[]): string {
  const chosen = new Set(columns);
  return WORKER_COLUMNS.filter((column) => chosen.has(column)).join(",");
}

/** The choice with `column` shown or hidden (`worker` stays). */
export function toggleWorkerColumn(columns: readonly WorkerColumn[], column: WorkerColumn): WorkerColumn[] {
  const chosen = new Set(columns);
  if (chosen.has(column) && column !== "worker") chosen.delete(column);
  else chosen.add(column);
  return WORKER_COLUMNS.filter((c) => chosen.has(c));
}

export interface Roster {
  workers: Worker[];
  /** The server's stale-after window, when it names one (a newer server). */
  staleAfterSeconds: number | null;
}

/**
 * The live list and the `status=stale` list as one roster, each worker once (the live answer wins).
 * A newer server leaves stale workers out of its default list; an older one lists them there and
 * answers `status=stale` with none (it filters its stored status), so both read the same here.
 */
export function mergeRoster(live: WorkerList | undefined, stale: WorkerList | undefined): Roster {
  const seen = new Set<string>();
  const workers: Worker[] = [];
  for (const worker of [...(live?.workers ?? []), ...(stale?.workers ?? [])]) {
    if (seen.has(worker.worker_id)) continue;
    seen.add(worker.worker_id);
    workers.push(worker);
  }
  return { workers, staleAfterSeconds: live?.stale_after_seconds ?? stale?.stale_after_seconds ?? null };
}

export type FreshnessState = "live" | "stale" | "unknown";

export interface Freshness {
  state: FreshnessState;
  /** Seconds since the last heartbeat (never negative), or null when the server sent none. */
  ageSeconds: number | null;
  /** How the verdict was reached: the server said so, or its window applied to the heartbeat's age since. */
  basis: "server" | "window" | "none";
}

/**
 * A worker's freshness by the server's own rule: stale when the server says so, or, once the roster
 * has aged, when its last heartbeat is older than the server's `stale_after_seconds` (the rule
 * WorkerManagementController.php after @c6de4c3 `workerIsStale` applies); unknown when there is no
 * heartbeat time to judge by. An older server names no window: its status is the verdict.
 */
export function workerFreshness(worker: Worker, staleAfterSeconds: number | null, now: number): Freshness {
  const at = parseTimestamp(worker.last_heartbeat_at ?? null);
  const ageSeconds = at ? Math.max(0, Math.floor((now - at.getTime()) / 1000)) : null;
  if (worker.status === "stale") return { state: "stale", ageSeconds, basis: "server" };
  if (ageSeconds === null) return { state: "unknown", ageSeconds, basis: "none" };
  if (staleAfterSeconds !== null && ageSeconds > staleAfterSeconds)
    return { state: "stale", ageSeconds, basis: "window" };
  return { state: "live", ageSeconds, basis: "server" };
}

export interface SlotFamily {
  family: "workflow" | "activity" | "session";
  /** Free slots as last reported, or null when the worker has not reported them. */
  available: number | null;
  /** The declared capacity, or null when none is declared. */
  capacity: number | null;
}

/** The task-slot families the worker reports or declares (sessions only when it has a capacity). */
export function workerSlots(worker: Worker): SlotFamily[] {
  const slots = worker.task_slots ?? null;
  const families: SlotFamily[] = [
    {
      family: "workflow",
      available: slots?.workflow_available ?? null,
      capacity: slots?.workflow_capacity ?? worker.max_concurrent_workflow_tasks ?? null,
    },
    {
      family: "activity",
      available: slots?.activity_available ?? null,
      capacity: slots?.activity_capacity ?? worker.max_concurrent_activity_tasks ?? null,
    },
  ];
  const sessionCapacity = slots?.session_capacity ?? worker.max_concurrent_worker_sessions ?? null;
  if (sessionCapacity !== null || (slots?.session_available ?? null) !== null)
    families.push({ family: "session", available: slots?.session_available ?? null, capacity: sessionCapacity });
  return families.filter((f) => f.available !== null || f.capacity !== null);
}

/** Busy share of a family's capacity (0–1), or null when free slots or capacity are unknown. */
export function slotUse(family: SlotFamily): number | null {
  if (family.available === null || family.capacity === null || family.capacity <= 0) return null;
  return Math.min(1, Math.max(0, (family.capacity - family.available) / family.capacity));
}

export interface ProcessFacts {
  host: string | null;
  pid: string | null;
  cpuPercent: number | null;
  memoryBytes: number | null;
  uptimeSeconds: number | null;
}

/** What the worker reported about its process, each fact only when reported. */
export function workerProcess(worker: Worker): ProcessFacts | null {
  const m = worker.process_metrics ?? null;
  if (m === null) return null;
  const num = (value: unknown) => (typeof value === "number" && Number.isFinite(value) ? value : null);
  const facts: ProcessFacts = {
    host: typeof m.host === "string" && m.host !== "" ? m.host : null,
    pid: typeof m.process_id === "number" || typeof m.process_id === "string" ? String(m.process_id) : null,
    cpuPercent: num(m.cpu_percent),
    memoryBytes: num(m.memory_bytes),
    uptimeSeconds: num(m.process_uptime_seconds),
  };
  return Object.values(facts).every((value) => value === null) ? null : facts;
}

/** Bytes in binary units with one decimal from KiB up ("52.4 MiB"); the unit names are international. */
export function formatBytes(bytes: number, locale: string): string {
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let value = Math.max(0, bytes);
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  const digits = unit === 0 ? 0 : 1;
  const number = new Intl.NumberFormat(locale, { maximumFractionDigits: digits, minimumFractionDigits: digits });
  return `${number.format(value)} ${units[unit]}`;
}
