"use client";

import { Suspense, use, useCallback, useDeferredValue, useMemo, useState } from "react";
import type { ReactNode } from "react";
import dynamic from "next/dynamic";
import { useSearchParams } from "next/navigation";
import { useTranslations } from "next-intl";
import { useQuery } from "@tanstack/react-query";
import type { RunDescription, RunListItem, WorkflowDebug } from "@/lib/dw/schemas-workflows";
import { exceptionRows } from "@/lib/views/exceptions";
import { livenessLabel } from "@/lib/views/liveness";
import { DwErrorState } from "@/components/dw/dw-error-state";
import type { ErrorInfo } from "@/lib/views/error-info";
import { toErrorInfo } from "@/lib/views/error-info";
import { useEarlyTab } from "@/components/hooks/use-early-tab";
import { useTicker } from "@/components/hooks/use-time-format";
import { useRunView, useRunViewData } from "@/lib/run-view/use-run-view";
import { RunViewProgress } from "@/components/run-detail/run-view-progress";
import { LatestEvents } from "@/components/run-detail/latest-events";
import { ExceptionsTable } from "@/components/run-detail/exceptions-table";
import { runDebugQuery, runDescribeQuery } from "@/lib/queries/run";
import type { RunViewData } from "@/lib/run-view/stream";
import type { RunViewStore, RunViewSummary } from "@/lib/run-view/store";
import type { TimelineListRow } from "@/lib/views/timeline";
import { workflowRunsQuery } from "@/lib/queries/workflow-runs";
import { RunHeader } from "@/components/run-detail/run-header";
import { Muted, Section } from "@/components/ui/section";
import type { RunUrlState, WrittenUrlState } from "@/components/run-detail/run-detail-url-state";
import { currentUrlState, writeUrlState } from "@/components/run-detail/run-detail-url-state";
import type { RunTabData, RunTabEntry, RunTabProps } from "@/components/run-detail/run-tab-registry";
import { isRunTab, ledgerCode, panelProps, preloadTabCode, runTab } from "@/components/run-detail/run-tab-registry";
import { RunTabPanel, RunTabs } from "@/components/run-detail/run-tabs";

const NO_RUNS: readonly RunListItem[] = [];

/*
 * Only the header, the actions bar, the progress line, the exceptions table and the latest events
 * are needed for the first paint; the tab panels (run-tab-registry.tsx), the retry forecast (it
 * waits for the streamed views) and the action forms (no zod: the server validates,
 * lib/dw/browser-client.ts) load as separate chunks, so they stay out of the route's first-load JS.
 * Payload decoding (avsc) is loaded on demand.
 */
const renderNothing = () => null;
const RunActions = dynamic(() => import("@/components/actions/run-actions").then((m) => m.RunActions), {
  loading: renderNothing,
});
const BundleRetryForecast = dynamic(() => ledgerCode().then((m) => m.BundleRetryForecast), { loading: renderNothing });

// Panel code that starts loading with this module instead of when its tab first renders (after
// hydration): the preloaded tabs and the tab a copied link names.
if (typeof window !== "undefined") preloadTabCode(new URLSearchParams(window.location.search).get("view"));

interface RunDetailProps {
  namespace: string;
  workflowId: string;
  runId: string;
  initialDescribe: RunDescription | null;
  initialDebug: WorkflowDebug | null;
  initialError: ErrorInfo | null;
  /** The newest events, read by the server render (one small history page), streamed after the header. */
  initialLatest?: Promise<TimelineListRow[] | null> | TimelineListRow[] | null;
}

/** The server render's newest events, shown when that page arrives (it streams behind the header). */
function ServerLatest({
  rows,
  total,
}: {
  rows: Promise<TimelineListRow[] | null> | TimelineListRow[];
  total: number | null;
}) {
  // A thenable, not `instanceof Promise`: a promise passed from the server arrives as React's own chunk.
  const read = Array.isArray(rows) ? rows : use(rows);
  return read ? <LatestEvents rows={read} total={total} /> : null;
}

/** Re-renders only its children as lines stream in (every 100 ms), not the whole run page. */
function WithRunViewData({ store, children }: { store: RunViewStore; children: (data: RunViewData) => ReactNode }) {
  return children(useRunViewData(store));
}

/** The newest events: the streamed list's tail once it is read, else the server render's page. */
function Latest({
  summary,
  initial,
  total,
}: {
  summary: RunViewSummary;
  initial: RunDetailProps["initialLatest"];
  total: number | null;
}) {
  if (summary.latest) return <LatestEvents rows={summary.latest} total={total} />;
  if (!initial) return null;
  return (
    <Suspense fallback={null}>
      <ServerLatest rows={initial} total={total} />
    </Suspense>
  );
}

/**
 * The tab, timeline mode and history filters: the URL's, with a change shown at once from local
 * state. Next's search parameters follow a replaceState in a transition, and on a big run the
 * run-view stream's updates (every 100 ms) kept interrupting it: a tab click waited for the whole read.
 */
function useRunUrlState(): [RunUrlState, (change: Partial<RunUrlState>) => void] {
  const search = useSearchParams().toString();
  const [written, setWritten] = useState<WrittenUrlState | null>(null);
  const state = useMemo(() => currentUrlState(search, written), [search, written]);
  const update = useCallback(
    (change: Partial<RunUrlState>) => {
      const next = writeUrlState(search, state, change);
      setWritten(next);
      window.history.replaceState(null, "", `${window.location.pathname}${next.written ? `?${next.written}` : ""}`);
    },
    [search, state],
  );
  return [state, update];
}

/**
 * The open tab's panel, given what every panel takes and the data its entry names; a panel that
 * needs the streamed views re-renders as lines stream in, the page does not.
 */
function OpenTab({ entry, props, page }: { entry: RunTabEntry; props: RunTabProps; page: Omit<RunTabData, "data"> }) {
  const Panel = entry.panel;
  if (!entry.needs.includes("data")) return <Panel {...panelProps(entry, props, page)} />;
  return (
    <WithRunViewData store={page.store}>
      {(data) => <Panel {...panelProps(entry, props, { ...page, data })} />}
    </WithRunViewData>
  );
}

/**
 * One run: the header, liveness, exceptions (debug's recent failures) and the latest events render
 * from describe + debug + one history page (server-rendered, no history walk). The run-view stream
 * then fills in the timeline, the attempt ledger, the derived waits and the complete exceptions as
 * the console server reads the history pages; tasks, commands and links come from the export only
 * when their tab opens; the History tab pages and tails the event log on its own.
 */
export function RunDetail({
  namespace,
  workflowId,
  runId,
  initialDescribe,
  initialDebug,
  initialError,
  initialLatest,
}: RunDetailProps) {
  const t = useTranslations("run");
  const [state, update] = useRunUrlState();
  // The tab bar shows a click at once; the panel it opens renders as background work (a big run's
  // ledger or timeline drawn in the click's own task held the main thread too long).
  const shownTab = useDeferredValue(state.tab);
  // A tab clicked while the page was still loading its scripts opens once it is interactive.
  useEarlyTab((tab) => {
    if (isRunTab(tab)) update({ tab });
  });
  const describe = useQuery({
    ...runDescribeQuery(namespace, workflowId, runId),
    initialData: initialDescribe ?? undefined,
  });
  const open = describe.data ? !describe.data.is_terminal : true;
  const debug = useQuery({
    ...runDebugQuery(namespace, workflowId, runId, open),
    initialData: initialDebug ?? undefined,
  });
  // The page follows the summary (a few renders per read); only the progress line and the open tab
  // re-render as lines stream in.
  const { summary, store, retry } = useRunView(namespace, workflowId, runId, open);
  const runs = useQuery(workflowRunsQuery(namespace, workflowId, open));
  const now = useTicker(open ? 5_000 : 60_000);

  const snapshot = summary.complete ? summary.snapshot : null;
  const recentFailures = debug.data?.recent_failures;
  const exceptions = useMemo(
    () => snapshot?.exceptions ?? exceptionRows({ recent_failures: recentFailures ?? [] }),
    [snapshot, recentFailures],
  );

  // Waits count only once the whole history was read: a partial read may miss the event that closed one.
  const waitsRead = useMemo(
    () => (snapshot ? { waits: snapshot.waits, readThrough: snapshot.lastSequence } : null),
    [snapshot],
  );

  const run = describe.data;
  const execution = debug.data?.execution;
  // One object per change of its inputs, so the memoised header is not redrawn on every render.
  const liveness = useMemo(
    () =>
      run
        ? livenessLabel({
            ...(execution ?? {}),
            is_current_run: run.is_current_run,
            is_terminal: run.is_terminal,
            status: run.status,
          })
        : null,
    [run, execution],
  );
  if (!run || !liveness) {
    const error = describe.error ? toErrorInfo(describe.error) : initialError;
    return error ? (
      <DwErrorState error={error} onRetry={() => void describe.refetch()} />
    ) : (
      <Muted>{t("loading")}</Muted>
    );
  }
  const eventCount = snapshot?.counts.events ?? debug.data?.execution.last_event?.sequence ?? summary.total;
  const tabProps: RunTabProps = { namespace, workflowId, runId, open, settings: state, onSettings: update };
  // The ticking "now" only stretches the axis of open bars; the rows are built once per snapshot.
  const tabData = {
    summary,
    store,
    pending: debug.data?.pending_workflow_tasks,
    runs: runs.data?.runs ?? NO_RUNS,
    now,
  };

  return (
    <div className="space-y-4">
      {describe.error ? (
        <DwErrorState error={toErrorInfo(describe.error)} onRetry={() => void describe.refetch()} />
      ) : null}
      <RunHeader
        namespace={namespace}
        describe={run}
        debug={debug.data ?? null}
        eventCount={eventCount ?? null}
        liveness={liveness}
        runs={runs.data?.runs ?? NO_RUNS}
        waits={waitsRead?.waits ?? null}
      />
      <RunActions
        namespace={namespace}
        workflowId={workflowId}
        runId={runId}
        describe={run}
        debug={debug.data ?? null}
        waits={waitsRead}
      />
      <WithRunViewData store={store}>
        {(data) => (
          <RunViewProgress
            data={data}
            onRetry={retry}
            knownTotal={debug.data?.execution.last_event?.sequence ?? null}
          />
        )}
      </WithRunViewData>
      {summary.snapshot ? (
        <BundleRetryForecast
          ledger={summary.snapshot.openLedger}
          className="rounded-lg border border-line bg-panel px-4 py-2 text-sm"
        />
      ) : null}
      <ExceptionsTable rows={exceptions} complete={snapshot !== null} reading={summary.status === "reading"} />
      {/* The tabs come right after the exceptions, so they are in a 1440×900 window's first screen. */}
      <Section
        title={t(`tabs.${state.tab}`)}
        actions={<RunTabs selected={state.tab} onSelect={(tab) => update({ tab })} />}
      >
        <RunTabPanel tab={shownTab}>
          <OpenTab entry={runTab(shownTab)} props={tabProps} page={tabData} />
        </RunTabPanel>
      </Section>
      <Latest summary={summary} initial={initialLatest} total={eventCount ?? null} />
    </div>
  );
}
