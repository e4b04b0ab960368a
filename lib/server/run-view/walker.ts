import "server-only";
import type { DwClient } from "@/lib/dw/client";
import type { HistoryEvent } from "@/lib/dw/schemas-workflows";
import { DwMalformedResponseError } from "@/lib/dw/errors";

/**
 * Reading a run's history page by page with the person's client (issue 14).
 *
 * The page size is a constant: the control-plane history route caps `page_size` at 1000 and
 * advertises that nowhere (durable-workflow/server@11d35b70cad1dea7719bb04c4619f6c15e25ac08
 * app/Http/Controllers/Api/HistoryController.php:33-37; docs/research/issue-14-real-server-facts.md §1).
 * The token is built here, `base64(String(lastSequence))` (HistoryController.php:131-134), so a walk
 * can start after any sequence: resume an aborted walk, or extend an open run's view.
 */
export const HISTORY_PAGE_SIZE = 1000;

export function historyToken(afterSequence: number): string {
  return Buffer.from(String(afterSequence), "utf8").toString("base64");
}

export interface WalkTarget {
  workflowId: string;
  runId: string;
}

export interface PageRead {
  events: HistoryEvent[];
  /** The server has more events after this page (`next_page_token` was not null). */
  more: boolean;
}

/**
 * One page after `afterSequence`. The events must continue the run from there: a real server that
 * does not understand a token silently restarts at sequence 1 (HistoryController.php:103-129), which
 * would feed the derivation the run twice, so a page that does not start at `afterSequence + 1`, or
 * is not contiguous, is refused as a malformed answer.
 */
export async function readPage(
  client: DwClient,
  target: WalkTarget,
  afterSequence: number,
  options: { signal: AbortSignal; wait?: boolean },
): Promise<PageRead> {
  const page = await client.getHistory(
    target.workflowId,
    target.runId,
    {
      pageSize: HISTORY_PAGE_SIZE,
      nextPageToken: afterSequence > 0 ? historyToken(afterSequence) : null,
      waitNewEvent: options.wait === true,
    },
    { signal: options.signal },
  );
  let expected = afterSequence + 1;
  for (const [index, event] of page.events.entries()) {
    if (event.sequence !== expected) {
      throw new DwMalformedResponseError(
        `history page after sequence ${afterSequence} has sequence ${event.sequence} where ${expected} was expected`,
        { issuePath: `$.events[${index}].sequence`, httpStatus: 200 },
      );
    }
    expected += 1;
  }
  const more = page.next_page_token !== null && page.next_page_token !== undefined;
  if (more && page.events.length === 0) {
    throw new DwMalformedResponseError(`history page after sequence ${afterSequence} is empty but names a next page`, {
      issuePath: "$.next_page_token",
      httpStatus: 200,
    });
  }
  return { events: page.events, more };
}

/**
 * Pages from `afterSequence` to the end of what the server has now. The caller's signal stops it
 * between pages and aborts the page in flight. None is a long-poll: the service makes those with
 * `readPage` itself, before it walks.
 *
 * The next page is asked for as soon as a page arrives, before the caller derives it: the server
 * reads page N+1 while the console derives page N, so a walk takes about the longer of the two
 * instead of their sum (docs/decisions/0042). At most one page is read ahead.
 */
export async function* walkPages(
  client: DwClient,
  target: WalkTarget,
  afterSequence: number,
  options: { signal: AbortSignal },
): AsyncGenerator<PageRead> {
  // The read-ahead is also stopped when the caller stops early (an error deriving a page).
  const stop = new AbortController();
  const signal = AbortSignal.any([options.signal, stop.signal]);
  let next: Promise<PageRead> | null = readPage(client, target, afterSequence, { signal });
  try {
    while (next !== null) {
      const page: PageRead = await next;
      signal.throwIfAborted();
      const last = page.events.at(-1);
      next = page.more && last !== undefined ? readPage(client, target, last.sequence, { signal }) : null;
      // Unawaited if the caller stops before asking for it; its failure is then nobody's to report.
      next?.catch(() => undefined);
      yield page;
    }
  } finally {
    stop.abort(new DOMException("the walk stopped", "AbortError"));
  }
}
