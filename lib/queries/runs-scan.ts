import type { ListWorkflowsParams, WorkflowList, WorkflowListItem } from "@/lib/dw";

/**
 * What the runs list answers that the server's `GET /workflows` cannot: the real server filters by
 * `status`, `workflow_type` (exact), `query` (a substring of the workflow id or business key),
 * `page_size` ≤ 200 and an opaque offset `next_page_token`, nothing else
 * (WorkflowController@index, durable-workflow/server@11d35b7). A run-id search, a time range, a task
 * queue or several matching types are therefore answered here, by walking the newest pages with a
 * stated bound, and a cursor the server silently ignored (an unreadable token means offset 0 there)
 * is caught here instead of showing page 1 as if it were the page asked for.
 */

/** Runs one console-side walk reads at most before it stops and says so. */
export const RUNS_SCAN_LIMIT = 1_000;
/** Rows per request while walking: the real server's maximum page size. */
export const RUNS_SCAN_PAGE = 200;
/** The newest runs whose types a typed type is matched against (one request). */
export const TYPE_SAMPLE = 200;

export const TIME_RANGES = { "1h": 3_600_000, "24h": 86_400_000, "7d": 604_800_000, "30d": 2_592_000_000 } as const;
export type TimeRange = keyof typeof TIME_RANGES;

export type List = (params: ListWorkflowsParams) => Promise<WorkflowList>;

/** Why the page asked for is not shown: the server ignored the cursor, it is past the end, or it is unreadable. */
export type CursorProblem = "ignored" | "expired" | "invalid";

export interface RunsView {
  /** `server`: one server page as it came; `scan`: pages walked and filtered here. */
  mode: "server" | "scan";
  /** Runs read console-side (scan mode). */
  scanned: number;
  /** The walk stopped at {@link RUNS_SCAN_LIMIT} with more runs left to read. */
  capped: boolean;
  /** The search matched run ids (the server found no workflow id or business key containing it). */
  runIdSearch: boolean;
  /** The exact types a typed type stood for, when it was not one itself; empty when none matched. */
  resolvedTypes: string[] | null;
  cursorProblem: CursorProblem | null;
}

export interface RunsPage extends WorkflowList {
  view: RunsView;
}

export interface ConsoleFilter {
  status?: ListWorkflowsParams["status"];
  workflowType: string;
  search: string;
  range: TimeRange | null;
  taskQueue: string;
  pageSize: number;
  cursor: string | null;
}

/** ULIDs and other run ids: letters and digits only, long enough not to match half the fleet. */
const RUN_ID_FRAGMENT = /^[0-9A-Za-z]{4,40}$/;

export function looksLikeRunId(term: string): boolean {
  return RUN_ID_FRAGMENT.test(term);
}

// ------------------------------------------------------------------------------------ cursors

const SCAN_CURSOR = "s1.";

interface ScanCursor {
  /** The server token of the page the walk resumes in (null: the first page). */
  t: string | null;
  /** Rows of that page already walked past. */
  k: number;
}

export function encodeScanCursor(cursor: ScanCursor): string {
  const json = JSON.stringify(cursor);
  const base64 = btoa(String.fromCharCode(...new TextEncoder().encode(json)));
  return SCAN_CURSOR + base64.replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

export function decodeScanCursor(text: string): ScanCursor | null {
  if (!text.startsWith(SCAN_CURSOR)) return null;
  try {
    const base64 = text.slice(SCAN_CURSOR.length).replace(/-/g, "+").replace(/_/g, "/");
    const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
    const value: unknown = JSON.parse(new TextDecoder().decode(bytes));
    if (typeof value !== "object" || value === null) return null;
    const { t, k } = value as Record<string, unknown>;
    if ((t !== null && typeof t !== "string") || typeof k !== "number" || !Number.isInteger(k) || k < 0) return null;
    return { t, k };
  } catch {
    return null;
  }
}

// ------------------------------------------------------------------------------------ types

/**
 * The exact types a typed type stands for, among the types of the newest runs: a case-insensitive
 * equal first, else every type containing it. Null when the typed text is a type the server knows
 * (it answers rows for it), so the common case costs one one-row request.
 */
export async function resolveTypes(list: List, typed: string, signal?: AbortSignal): Promise<string[] | null> {
  const exact = await list({ workflowType: typed, pageSize: 1 });
  signal?.throwIfAborted();
  if (exact.workflows.length > 0) return null;
  const sample = await list({ pageSize: TYPE_SAMPLE });
  return matchTypes(
    sample.workflows.map((row) => row.workflow_type),
    typed,
  );
}

export function matchTypes(seen: readonly string[], typed: string): string[] {
  const wanted = typed.toLowerCase();
  const types = [...new Set(seen)].sort();
  const equal = types.filter((type) => type.toLowerCase() === wanted);
  return equal.length > 0 ? equal : types.filter((type) => type.toLowerCase().includes(wanted));
}

// ------------------------------------------------------------------------------------ predicate

interface RowTest {
  types: ReadonlySet<string> | null;
  runIdPrefix: string | null;
  taskQueue: string | null;
  /** Runs started before this (ms) are out of range, and so is every run after them. */
  since: number | null;
}

function startedMs(row: WorkflowListItem): number | null {
  const ms = row.started_at ? Date.parse(row.started_at) : Number.NaN;
  return Number.isNaN(ms) ? null : ms;
}

function matches(row: WorkflowListItem, test: RowTest): boolean {
  if (test.types && !test.types.has(row.workflow_type)) return false;
  if (test.runIdPrefix && !row.run_id.toUpperCase().startsWith(test.runIdPrefix)) return false;
  if (test.taskQueue && (row.task_queue ?? "").toLowerCase() !== test.taskQueue) return false;
  return true;
}

/**
 * The list is ordered by `sort_timestamp` (started_at, else created_at) newest first
 * (WorkflowController@index `orderByDesc('workflow_run_summaries.sort_timestamp')`), so the first run
 * started before the range ends the walk.
 */
function beforeRange(row: WorkflowListItem, test: RowTest): boolean {
  const started = startedMs(row);
  return test.since !== null && started !== null && started < test.since;
}

// ------------------------------------------------------------------------------------ walk

interface WalkResult {
  rows: WorkflowListItem[];
  next: string | null;
  scanned: number;
  capped: boolean;
  expired: boolean;
  last: WorkflowList | null;
}

/** Walks server pages from `start`, keeping matches, until a page of them, the range's end or the limit. */
async function walk(
  list: List,
  base: ListWorkflowsParams,
  test: RowTest,
  pageSize: number,
  start: ScanCursor,
  signal?: AbortSignal,
): Promise<WalkResult> {
  const rows: WorkflowListItem[] = [];
  let token = start.t;
  let skip = start.k;
  let scanned = 0;
  let last: WorkflowList | null = null;
  for (;;) {
    const page: WorkflowList = await list({ ...base, pageSize: RUNS_SCAN_PAGE, nextPageToken: token });
    signal?.throwIfAborted();
    if (last === null && token !== null && page.workflows.length <= skip)
      return { rows, next: null, scanned, capped: false, expired: true, last: page };
    last = page;
    const more = page.next_page_token ?? null;
    for (let index = skip; index < page.workflows.length; index++) {
      const row = page.workflows[index]!;
      if (beforeRange(row, test)) return { rows, next: null, scanned, capped: false, expired: false, last };
      scanned += 1;
      if (matches(row, test)) rows.push(row);
      const inPage = index + 1 < page.workflows.length;
      const hasAfter = inPage || more !== null;
      // At a page's end the walk resumes at the next page, so a resumed walk never starts on an empty one.
      const next = inPage
        ? encodeScanCursor({ t: token, k: index + 1 })
        : more
          ? encodeScanCursor({ t: more, k: 0 })
          : null;
      if (rows.length >= pageSize) return { rows, next, scanned, capped: false, expired: false, last };
      if (scanned >= RUNS_SCAN_LIMIT) return { rows, next, scanned, capped: hasAfter, expired: false, last };
    }
    if (more === null) return { rows, next: null, scanned, capped: false, expired: false, last };
    token = more;
    skip = 0;
  }
}

const NO_VIEW: RunsView = {
  mode: "server",
  scanned: 0,
  capped: false,
  runIdSearch: false,
  resolvedTypes: null,
  cursorProblem: null,
};

function problemPage(view: RunsView, problem: CursorProblem, from: WorkflowList | null): RunsPage {
  return {
    workflows: [],
    workflow_count: 0,
    next_page_token: null,
    control_plane: from?.control_plane,
    view: { ...view, cursorProblem: problem },
  } as RunsPage;
}

/**
 * One server page, checked: a cursor that brought no rows is past the end; one whose answer starts
 * with the first page's first run was ignored by the server (the real server reads an unreadable
 * token as offset 0).
 */
async function serverPage(list: List, base: ListWorkflowsParams, filter: ConsoleFilter, view: RunsView) {
  if (filter.cursor && decodeScanCursor(filter.cursor)) return problemPage(view, "invalid", null);
  const page = await list({ ...base, pageSize: filter.pageSize, nextPageToken: filter.cursor });
  if (!filter.cursor) return { ...page, view };
  const first = page.workflows[0];
  if (!first) return problemPage(view, "expired", page);
  const head = await list({ ...base, pageSize: 1 });
  if (head.workflows[0]?.run_id === first.run_id) return problemPage(view, "ignored", page);
  return { ...page, view };
}

/** The runs-list page for the console's filters: the server's page when it can answer alone, else a bounded walk. */
export async function fetchRunsPage(
  list: List,
  filter: ConsoleFilter,
  now: number,
  signal?: AbortSignal,
): Promise<RunsPage> {
  const search = filter.search.trim();
  const typed = filter.workflowType.trim();
  const resolved = typed ? await resolveTypes(list, typed, signal) : null;
  const serverType = resolved === null ? typed || undefined : resolved.length === 1 ? resolved[0] : undefined;
  let base: ListWorkflowsParams = { status: filter.status, workflowType: serverType, query: search || undefined };
  let runIdSearch = false;
  if (search && looksLikeRunId(search)) {
    const probe = await list({ ...base, pageSize: 1 });
    runIdSearch = probe.workflows.length === 0;
    if (runIdSearch) base = { ...base, query: undefined };
  }
  const test: RowTest = {
    types: resolved && resolved.length > 1 ? new Set(resolved) : null,
    runIdPrefix: runIdSearch ? search.toUpperCase() : null,
    taskQueue: filter.taskQueue.trim().toLowerCase() || null,
    since: filter.range ? now - TIME_RANGES[filter.range] : null,
  };
  const view: RunsView = { ...NO_VIEW, runIdSearch, resolvedTypes: resolved };
  // No type among the newest runs is like the typed one: nothing to ask the server for.
  if (resolved !== null && resolved.length === 0)
    return { workflows: [], workflow_count: 0, next_page_token: null, view } as unknown as RunsPage;
  const consoleSide = test.types || test.runIdPrefix || test.taskQueue || test.since !== null;
  if (!consoleSide) return serverPage(list, base, filter, view);
  const start = filter.cursor ? decodeScanCursor(filter.cursor) : { t: null, k: 0 };
  if (!start) return problemPage({ ...view, mode: "scan" }, "invalid", null);
  const result = await walk(list, base, test, filter.pageSize, start, signal);
  const scanView: RunsView = { ...view, mode: "scan", scanned: result.scanned, capped: result.capped };
  if (result.expired) return problemPage(scanView, "expired", result.last);
  return {
    workflows: result.rows,
    workflow_count: result.rows.length,
    next_page_token: result.next,
    control_plane: result.last?.control_plane,
    view: scanView,
  } as RunsPage;
}

/** A plain server answer (the server render's, before this module existed) as a page with no console view. */
export function asRunsPage(list: WorkflowList): RunsPage {
  return "view" in list ? (list as RunsPage) : { ...list, view: NO_VIEW };
}
