/**
 * The runs list's state, kept entirely in the URL so a copied link reopens the same page:
 * `status`, `type`, `q`, `range` (1h/24h/7d/30d), `queue`, `size`, `cursor` (the server's opaque page
 * token, or the console's own when it walks pages) and `trail` (the tokens of the pages before it, so
 * "previous" works with forward-only tokens).
 */

import type { TimeRange } from "@/lib/queries/runs-scan";
import { TIME_RANGES } from "@/lib/queries/runs-scan";

export const STATUS_TABS = ["all", "running", "completed", "failed"] as const;
export type StatusTab = (typeof STATUS_TABS)[number];

export const PAGE_SIZES = [25, 50, 100, 200] as const;
export const DEFAULT_PAGE_SIZE = 50;

export interface RunsQuery {
  status: StatusTab;
  workflowType: string;
  search: string;
  range: TimeRange | null;
  taskQueue: string;
  pageSize: number;
  cursor: string | null;
  /** Tokens of earlier pages, oldest first; `null` stands for the first page. */
  trail: (string | null)[];
  /** `density=normal` (roomier rows) and `hide` (columns left out): the list's look, kept with a saved view. */
  density?: string;
  hide?: string;
}

type Params = Readonly<Record<string, string | string[] | undefined>> | URLSearchParams;

function read(params: Params, key: string): string | null {
  if (params instanceof URLSearchParams) return params.get(key);
  const value = params[key];
  return Array.isArray(value) ? (value[0] ?? null) : (value ?? null);
}

const FIRST_PAGE = "~";

function parseRange(value: string | null): TimeRange | null {
  return value !== null && Object.hasOwn(TIME_RANGES, value) ? (value as TimeRange) : null;
}

export function parseRunsQuery(params: Params): RunsQuery {
  const status = read(params, "status");
  const size = Number(read(params, "size"));
  const trail = read(params, "trail");
  return {
    status: (STATUS_TABS as readonly string[]).includes(status ?? "") ? (status as StatusTab) : "all",
    workflowType: (read(params, "type") ?? "").trim(),
    search: (read(params, "q") ?? "").trim(),
    range: parseRange(read(params, "range")),
    taskQueue: (read(params, "queue") ?? "").trim(),
    pageSize: (PAGE_SIZES as readonly number[]).includes(size) ? size : DEFAULT_PAGE_SIZE,
    cursor: read(params, "cursor") || null,
    trail: trail ? trail.split(",").map((token) => (token === FIRST_PAGE ? null : token)) : [],
    ...(read(params, "density") === "normal" ? { density: "normal" } : {}),
    ...(read(params, "hide") ? { hide: read(params, "hide") as string } : {}),
  };
}

/** The search string for a query; defaults are left out so links stay short. */
export function runsQueryString(query: RunsQuery): string {
  const params = new URLSearchParams();
  if (query.status !== "all") params.set("status", query.status);
  if (query.workflowType) params.set("type", query.workflowType);
  if (query.search) params.set("q", query.search);
  if (query.range) params.set("range", query.range);
  if (query.taskQueue) params.set("queue", query.taskQueue);
  if (query.pageSize !== DEFAULT_PAGE_SIZE) params.set("size", String(query.pageSize));
  if (query.cursor) params.set("cursor", query.cursor);
  if (query.trail.length > 0) params.set("trail", query.trail.map((token) => token ?? FIRST_PAGE).join(","));
  if (query.density) params.set("density", query.density);
  if (query.hide) params.set("hide", query.hide);
  const text = params.toString();
  return text ? `?${text}` : "";
}

/** A filter change starts over at the first page. */
export function withFilter(
  query: RunsQuery,
  change: Partial<Pick<RunsQuery, "status" | "workflowType" | "search" | "range" | "taskQueue" | "pageSize">>,
): RunsQuery {
  return { ...query, ...change, cursor: null, trail: [] };
}

/** The first page of the same filters: where an ignored or expired cursor sends the operator back to. */
export function firstPage(query: RunsQuery): RunsQuery {
  return { ...query, cursor: null, trail: [] };
}

export function nextPage(query: RunsQuery, nextToken: string): RunsQuery {
  return { ...query, cursor: nextToken, trail: [...query.trail, query.cursor] };
}

export function previousPage(query: RunsQuery): RunsQuery | null {
  if (query.trail.length === 0) return null;
  return { ...query, cursor: query.trail.at(-1) ?? null, trail: query.trail.slice(0, -1) };
}
