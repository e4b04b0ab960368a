import "server-only";
import type { DwClient, WorkflowListItem } from "@/lib/dw";
import type { ScheduleList, ScheduleListItem } from "@/lib/dw/schemas-schedules";
import type { ConsoleFilter, TimeRange } from "@/lib/queries/runs-scan";
import { fetchRunsPage, TIME_RANGES } from "@/lib/queries/runs-scan";
import { mapBounded } from "@/lib/confirm/bulk";
import type { ClosedRunInput, TriageWindow } from "@/lib/views/closed-failures";
import { closedFailureGroups, closingFailure, lastEventInput, TRIAGE_WINDOWS } from "@/lib/views/closed-failures";
import { epochMs } from "@/lib/views/events";
import type { ScheduleFilters } from "@/lib/views/schedules";
import { filterSchedules, fireLateness, scheduleState } from "@/lib/views/schedules";
import type { ExportSource } from "./list-export";

/** Rows asked of the server per page: its largest (WorkflowController@index, page_size ≤ 200). */
export const EXPORT_PAGE_SIZE = 200;
/** Debug reads in flight at once for a Failures group (the screen's scan reads as many). */
const DEBUG_CONCURRENCY = 4;

// ---------------------------------------------------------------- runs

const RUN_STATUSES = ["all", "running", "completed", "failed"] as const;

/** The runs list's URL filters (components/run-list/run-list-url-state.ts: status, type, q, range, queue). */
export function runsExportFilter(params: URLSearchParams): Omit<ConsoleFilter, "pageSize" | "cursor"> {
  const status = params.get("status") ?? "all";
  const range = params.get("range");
  return {
    status:
      (RUN_STATUSES as readonly string[]).includes(status) && status !== "all"
        ? (status as ConsoleFilter["status"])
        : undefined,
    workflowType: (params.get("type") ?? "").trim(),
    search: (params.get("q") ?? "").trim(),
    range: range !== null && Object.hasOwn(TIME_RANGES, range) ? (range as TimeRange) : null,
    taskQueue: (params.get("queue") ?? "").trim(),
  };
}

const RUN_COLUMNS: ExportSource<WorkflowListItem>["columns"] = [
  { key: "workflow_id", value: (row) => row.workflow_id },
  { key: "run_id", value: (row) => row.run_id },
  { key: "workflow_type", value: (row) => row.workflow_type },
  { key: "business_key", value: (row) => row.business_key },
  { key: "status", value: (row) => row.status },
  { key: "task_queue", value: (row) => row.task_queue },
  { key: "started_at", value: (row) => row.started_at },
  { key: "closed_at", value: (row) => row.closed_at },
];

/**
 * The runs list with the screen's filters, every page: the same walk as the screen
 * (lib/queries/runs-scan.ts), its cursor followed to the end. A cursor the server ignored or that
 * ran past the end mid-export is a failure (the file says so), not a silent restart at page one.
 */
export function runsSource(
  client: DwClient,
  filter: Omit<ConsoleFilter, "pageSize" | "cursor">,
  now: number,
): ExportSource<WorkflowListItem> {
  return {
    name: "runs",
    columns: RUN_COLUMNS,
    async *pages(signal) {
      let cursor: string | null = null;
      do {
        const page = await fetchRunsPage(
          (params) => client.listWorkflows(params, { signal }),
          { ...filter, pageSize: EXPORT_PAGE_SIZE, cursor },
          now,
          signal,
        );
        if (page.view.cursorProblem)
          throw new Error(`the server's list changed under the export (${page.view.cursorProblem} page cursor)`);
        yield page.workflows;
        cursor = page.next_page_token ?? null;
      } while (cursor);
    },
  };
}

// ---------------------------------------------------------------- failures group

export interface FailureRow {
  run: ClosedRunInput;
  exceptionType: string | null;
  message: string | null;
}

const FAILURE_COLUMNS: ExportSource<FailureRow>["columns"] = [
  { key: "workflow_id", value: (row) => row.run.workflowId },
  { key: "run_id", value: (row) => row.run.runId },
  { key: "workflow_type", value: (row) => row.run.workflowType },
  { key: "status", value: (row) => row.run.status },
  { key: "closed_at", value: (row) => row.run.closedAt },
  { key: "exception_type", value: (row) => row.exceptionType },
  { key: "message", value: (row) => row.message },
];

/**
 * One Failures group: the `failed` bucket page by page (newest started first, as the screen scans
 * it), the runs closed in the window read with their debug view, and only those whose group key
 * (lib/views/closed-failures.ts) is `groupKey` written. Unlike the screen's scan it has no row limit.
 */
export function failuresSource(
  client: DwClient,
  windowName: TriageWindow,
  groupKey: string,
  now: number,
): ExportSource<FailureRow> {
  const window = { from: now - TRIAGE_WINDOWS[windowName], to: now };
  return {
    name: "failures",
    columns: FAILURE_COLUMNS,
    async *pages(signal) {
      let token: string | null = null;
      do {
        const page = await client.listWorkflows(
          { status: "failed", pageSize: EXPORT_PAGE_SIZE, nextPageToken: token },
          { signal },
        );
        const inWindow = page.workflows.filter((row) => {
          const at = epochMs(row.closed_at ?? null);
          return at !== null && at >= window.from && at <= window.to;
        });
        const debugs = await mapBounded(
          inWindow,
          DEBUG_CONCURRENCY,
          (row) => client.debugRun(row.workflow_id, row.run_id, { includeLastEventPayload: true }, { signal }),
          () => undefined,
          signal,
        );
        const rows: FailureRow[] = [];
        inWindow.forEach((row, index) => {
          const debug = debugs[index];
          const run: ClosedRunInput = {
            workflowId: row.workflow_id,
            runId: row.run_id,
            workflowType: row.workflow_type ?? null,
            status: row.status ?? null,
            closedAt: row.closed_at ?? null,
            failures: debug?.recent_failures ?? [],
            lastEvent: lastEventInput(debug?.execution.last_event),
          };
          const group = closedFailureGroups([run], window).groups[0];
          if (group?.key !== groupKey) return;
          rows.push({
            run,
            exceptionType: group.exceptionType,
            message: closingFailure(run.failures ?? [])?.message ?? null,
          });
        });
        yield rows;
        token = page.next_page_token ?? null;
      } while (token);
    },
  };
}

// ---------------------------------------------------------------- schedules

/** The Schedules list's filters: `status` (active/paused), `type`, `q` (id contains), `show=late`. */
export function schedulesExportFilter(params: URLSearchParams): ScheduleFilters & { late: boolean } {
  const status = params.get("status");
  return {
    status: status === "active" || status === "paused" ? status : "all",
    workflowType: (params.get("type") ?? "").trim(),
    text: (params.get("q") ?? "").trim(),
    late: params.get("show") === "late",
  };
}

/**
 * The namespace's schedules with the screen's filters. The server at 11d35b7 answers every schedule
 * at once; the later one pages (`page_size` ≤ 200, `next_page_token`: ScheduleController::index in
 * the code index, read_file id 61270531581), which is followed here.
 */
export function schedulesSource(
  client: DwClient,
  filters: ScheduleFilters & { late: boolean },
  now: number,
): ExportSource<ScheduleListItem> {
  return {
    name: "schedules",
    columns: [
      { key: "schedule_id", value: (row) => row.schedule_id },
      { key: "workflow_type", value: (row) => row.workflow_type ?? row.action?.workflow_type },
      { key: "state", value: (row) => scheduleState(row.status, row.paused) },
      { key: "note", value: (row) => row.note },
      { key: "next_fire", value: (row) => row.next_fire },
      { key: "last_fire", value: (row) => row.last_fire },
      {
        key: "late",
        value: (row) => fireLateness(scheduleState(row.status, row.paused), row.next_fire, now).late,
      },
      { key: "overlap_policy", value: (row) => row.overlap_policy },
      { key: "fires_count", value: (row) => row.fires_count },
    ],
    async *pages(signal) {
      let token: string | null = null;
      const seen = new Set<string>();
      do {
        const page: ScheduleList = await client.read(
          "listSchedules",
          {},
          token ? { page_size: EXPORT_PAGE_SIZE, next_page_token: token } : { page_size: EXPORT_PAGE_SIZE },
          { signal },
        );
        const rows = filterSchedules(page.schedules, filters).filter(
          (row) =>
            !seen.has(row.schedule_id) &&
            (!filters.late || fireLateness(scheduleState(row.status, row.paused), row.next_fire, now).late),
        );
        for (const row of rows) seen.add(row.schedule_id);
        yield rows;
        const next = page.next_page_token ?? null;
        if (next !== null && next === token) throw new Error("the server answered the same page token twice");
        token = next;
      } while (token);
    },
  };
}
