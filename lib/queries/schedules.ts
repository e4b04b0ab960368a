import { queryOptions } from "@tanstack/react-query";
import { browserDwClientFor } from "@/lib/dw/browser-client";
import { ENDPOINTS } from "@/lib/dw/endpoints";
import type { ScheduleHistory, ScheduleHistoryEvent, ScheduleList } from "@/lib/dw/schemas-schedules";
import { endpointQuery, endpointQueryKey } from "@/lib/queries/endpoint-query";

/** Schedules asked per page: the later server's largest `page_size` (its default is 50). */
export const SCHEDULE_PAGE_SIZE = 200;
/** Pages followed before the list says the server has more (10,000 schedules). */
const SCHEDULE_PAGES_MAX = 50;

/**
 * Every schedule of a namespace. At server@11d35b7 one answer holds them all (no paging there; the
 * query is ignored); the later server pages them, 50 by default, with `page_size` ≤ 200 and a signed
 * `next_page_token` (ScheduleController::index in the code index, read_file id 61270531581), which is
 * followed here up to {@link SCHEDULE_PAGES_MAX} pages; past that the answer keeps the server's token,
 * and the screen says there are more.
 */
export async function readAllSchedules(namespace: string, signal?: AbortSignal): Promise<ScheduleList> {
  const client = browserDwClientFor(namespace);
  let page: ScheduleList = await client.read("listSchedules", {}, { page_size: SCHEDULE_PAGE_SIZE }, { signal });
  const schedules = [...page.schedules];
  for (let pages = 1; page.next_page_token && pages < SCHEDULE_PAGES_MAX; pages += 1) {
    const token: string = page.next_page_token;
    page = await client.read(
      "listSchedules",
      {},
      { page_size: SCHEDULE_PAGE_SIZE, next_page_token: token },
      { signal },
    );
    if (page.next_page_token === token) break;
    schedules.push(...page.schedules);
  }
  return { ...page, schedules, schedule_count: schedules.length, next_page_token: page.next_page_token ?? null };
}

export function schedulesQuery(namespace: string) {
  return {
    ...endpointQuery(namespace, "listSchedules", {}),
    queryFn: ({ signal }: { signal: AbortSignal }) => readAllSchedules(namespace, signal),
  };
}

export function scheduleQuery(namespace: string, scheduleId: string) {
  return endpointQuery(namespace, "describeSchedule", { scheduleId });
}

/** The server's largest history page (ScheduleController::parseHistoryLimit). */
export const HISTORY_PAGE = 500;
/** Pages read before the screen says it shows only the start of a very long audit. */
const HISTORY_PAGES_MAX = 20;

export interface ScheduleAudit {
  /** The newest `keep` events, oldest first. */
  events: ScheduleHistoryEvent[];
  lastSequence: number;
  /** More pages were left unread (the audit is longer than {@link HISTORY_PAGES_MAX} pages). */
  truncated: boolean;
}

/** Every audit event after `afterSequence`, page by page (`after_sequence`, `has_more`, `next_cursor`). */
export async function readScheduleHistory(
  namespace: string,
  scheduleId: string,
  afterSequence = 0,
  keep = 50,
  signal?: AbortSignal,
): Promise<ScheduleAudit> {
  const client = browserDwClientFor(namespace);
  let cursor = afterSequence;
  let events: ScheduleHistoryEvent[] = [];
  for (let page = 0; page < HISTORY_PAGES_MAX; page += 1) {
    const answer: ScheduleHistory = await client.read(
      "scheduleHistory",
      { scheduleId },
      { limit: HISTORY_PAGE, after_sequence: cursor > 0 ? cursor : undefined },
      { signal },
    );
    events = [...events, ...answer.events].slice(-keep);
    cursor = answer.events.at(-1)?.sequence ?? cursor;
    if (!answer.has_more) return { events, lastSequence: cursor, truncated: false };
  }
  return { events, lastSequence: cursor, truncated: true };
}

/** The schedule's newest audit events (the detail page's "recent actions" history). */
export function scheduleAuditQuery(namespace: string, scheduleId: string) {
  return queryOptions({
    queryKey: endpointQueryKey(namespace, "scheduleHistory", { scheduleId }),
    queryFn: ({ signal }) => readScheduleHistory(namespace, scheduleId, 0, 50, signal),
    refetchInterval: ENDPOINTS.scheduleHistory.refreshMs,
    retry: false,
  });
}

/** A run a schedule started, by workflow id (its current run's status). */
export function scheduledRunQuery(namespace: string, workflowId: string) {
  return { ...endpointQuery(namespace, "describeWorkflow", { workflowId }), refetchInterval: 30_000 as const };
}
