import type { ActivityRowInput, LedgerActivity } from "./attempts";
import { attemptLedger } from "./attempts";
import type { HistoryEventInput } from "./events";
import type { ExceptionRow, ExceptionSource } from "./exceptions";
import { exceptionRows } from "./exceptions";
import type { TimelineChart, TimelineListRow } from "./timeline";
import { timelineList, timelineRows } from "./timeline";

/** The parts of an export bundle the run page derives its views from. */
export type RunBundleInput = ExceptionSource & {
  history_events: readonly HistoryEventInput[];
  activities?: readonly (ActivityRowInput & NonNullable<ExceptionSource["activities"]>[number])[] | null;
};

/**
 * What the run page shows of an export bundle, derived once. The bundle's two bulk arrays
 * (`history_events`, `activities`: 50,000 events are ~120 MB of JSON) are only inputs of these
 * views, so the prepared form leaves them out: the page can then receive it from a Web Worker
 * without parsing or cloning the bulk on its main thread.
 */
export interface PreparedBundle<B> {
  /** The bundle with `history_events` and `activities` emptied. */
  bundle: B;
  exceptions: ExceptionRow[];
  ledger: LedgerActivity[];
  timeline: { chart: TimelineChart; list: TimelineListRow[] };
  /** How many events and activities the full bundle held. */
  counts: { events: number; activities: number };
}

export function prepareRunBundle<B extends RunBundleInput>(bundle: B): PreparedBundle<B> {
  const events = bundle.history_events;
  const activities = bundle.activities ?? [];
  return {
    bundle: { ...bundle, history_events: [], activities: [] },
    exceptions: exceptionRows(bundle),
    ledger: attemptLedger(events, activities),
    timeline: { chart: timelineRows(events, { activities }), list: timelineList(events) },
    counts: { events: events.length, activities: activities.length },
  };
}
