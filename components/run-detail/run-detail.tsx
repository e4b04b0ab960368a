"use client";

import { useCallback, useMemo } from "react";
import type { ReactNode } from "react";
import dynamic from "next/dynamic";
import { useSearchParams } from "next/navigation";
import { useTranslations } from "next-intl";
import { useQuery } from "@tanstack/react-query";
import type { RunDescription, WorkflowDebug } from "@/lib/dw/schemas-workflows";
import { exceptionRows } from "@/lib/views/exceptions";
import { livenessLabel } from "@/lib/views/liveness";
import { DwErrorState } from "@/components/ui/dw-error-state";
import type { ErrorInfo } from "@/lib/views/error-info";
import { toErrorInfo } from "@/lib/views/error-info";
import { useTicker } from "@/components/hooks/use-time-format";
import { ExceptionsTable } from "@/components/run-detail/exceptions-table";
import { BundleLoadError } from "@/lib/queries/run-bundle";
import { runDebugQuery, runDescribeQuery, runExportQuery } from "@/lib/queries/run";
import { workflowRunsQuery } from "@/lib/queries/runs";
import { RunHeader } from "@/components/run-detail/run-header";
import { Muted, Section } from "@/components/run-detail/section";
import type { RunView, RunViewState } from "@/components/run-detail/run-detail-url-state";
import { RUN_VIEWS, parseRunViewState, runViewQueryString } from "@/components/run-detail/run-detail-url-state";
import { Button } from "@/components/ui/button";

function PanelLoading() {
  const t = useTranslations("run");
  return <Muted>{t("loading")}</Muted>;
}

/*
 * Only the header, the actions bar and the exceptions table are needed for the first paint; the
 * bundle-driven tab panels (timeline, activities, waits, tasks, commands, relationships), the retry
 * forecast (it waits for the export bundle too) and the action forms (no zod: the server validates,
 * lib/dw/browser-client.ts) load as separate chunks, so they stay out of the route's first-load JS, and so does the
 * History tab (virtual list, paging hook; ≈ 11 KB). Payload decoding (avsc) is loaded on demand.
 */
// A `loading` gives each its own Suspense boundary: without one, a chunk still loading when it first
// renders would suspend the whole run page (hiding it, and resetting the history list's scroll).
const renderNothing = () => null;
const RunActions = dynamic(() => import("@/components/actions/run-actions").then((m) => m.RunActions), {
  loading: renderNothing,
});
const BundleRetryForecast = dynamic(
  () => import("@/components/run-detail/activities-ledger").then((m) => m.BundleRetryForecast),
  { loading: renderNothing },
);
// Client-only: its virtual list measures itself on mount, and the events come from the browser anyway.
const HistoryPanel = dynamic(() => import("@/components/run-detail/history-view").then((m) => m.HistoryPanel), {
  ssr: false,
  loading: PanelLoading,
});
const TimelinePanel = dynamic(() => import("@/components/run-detail/timeline-view").then((m) => m.TimelinePanel), {
  loading: PanelLoading,
});
const ActivitiesPanel = dynamic(
  () => import("@/components/run-detail/activities-ledger").then((m) => m.ActivitiesPanel),
  { loading: PanelLoading },
);
const WaitsPanel = dynamic(() => import("@/components/run-detail/panels").then((m) => m.WaitsPanel), {
  loading: PanelLoading,
});
const TasksPanel = dynamic(() => import("@/components/run-detail/panels").then((m) => m.TasksPanel), {
  loading: PanelLoading,
});
const CommandsPanel = dynamic(() => import("@/components/run-detail/panels").then((m) => m.CommandsPanel), {
  loading: PanelLoading,
});
const RelationshipsPanel = dynamic(() => import("@/components/run-detail/panels").then((m) => m.RelationshipsPanel), {
  loading: PanelLoading,
});

interface RunDetailProps {
  namespace: string;
  workflowId: string;
  runId: string;
  initialDescribe: RunDescription | null;
  initialDebug: WorkflowDebug | null;
  initialError: ErrorInfo | null;
}

/**
 * One run: the header and the exceptions render from describe + debug (server-rendered, no history
 * needed); the export bundle then fills in the full exceptions, timeline, attempt ledger, waits,
 * tasks and commands, and the History tab pages and tails the event log on its own.
 */
export function RunDetail({
  namespace,
  workflowId,
  runId,
  initialDescribe,
  initialDebug,
  initialError,
}: RunDetailProps) {
  const t = useTranslations("run");
  const searchParams = useSearchParams();
  const state = useMemo(() => parseRunViewState(searchParams), [searchParams]);
  const update = useCallback(
    (change: Partial<RunViewState>) => {
      const next = { ...state, ...change };
      window.history.replaceState(null, "", `${window.location.pathname}${runViewQueryString(next)}`);
    },
    [state],
  );
  const describe = useQuery({
    ...runDescribeQuery(namespace, workflowId, runId),
    initialData: initialDescribe ?? undefined,
  });
  const open = describe.data ? !describe.data.is_terminal : true;
  const debug = useQuery({
    ...runDebugQuery(namespace, workflowId, runId, open),
    initialData: initialDebug ?? undefined,
  });
  const exported = useQuery(runExportQuery(namespace, workflowId, runId, open));
  const runs = useQuery(workflowRunsQuery(namespace, workflowId, open));
  const now = useTicker(open ? 5_000 : 60_000);

  const prepared = exported.data ?? null;
  const bundle = prepared?.bundle ?? null;
  const exceptions = useMemo(
    () => prepared?.exceptions ?? exceptionRows({ recent_failures: debug.data?.recent_failures ?? [] }),
    [prepared, debug.data],
  );

  const run = describe.data;
  if (!run) {
    const error = describe.error ? toErrorInfo(describe.error) : initialError;
    return error ? (
      <DwErrorState error={error} onRetry={() => void describe.refetch()} />
    ) : (
      <Muted>{t("loading")}</Muted>
    );
  }
  const liveness = livenessLabel({
    ...(bundle?.summary ?? debug.data?.execution ?? {}),
    is_current_run: run.is_current_run,
    is_terminal: run.is_terminal,
    status: run.status,
  });

  const bundleError = exported.error
    ? exported.error instanceof BundleLoadError
      ? exported.error.info
      : toErrorInfo(exported.error)
    : null;
  const pending = <Muted>{bundleError ? bundleError.message : t("loadingBundle")}</Muted>;
  const panel: Record<RunView, () => ReactNode> = {
    // The ticking "now" only stretches the axis of open bars; the rows are built once per bundle.
    timeline: () =>
      prepared ? (
        <TimelinePanel
          timeline={prepared.timeline}
          now={now}
          mode={state.timelineMode}
          onMode={(mode) => update({ timelineMode: mode })}
        />
      ) : (
        pending
      ),
    activities: () => (prepared ? <ActivitiesPanel ledger={prepared.ledger} /> : pending),
    history: () => (
      <HistoryPanel
        namespace={namespace}
        workflowId={workflowId}
        runId={runId}
        live={open}
        types={state.historyTypes}
        failuresOnly={state.failuresOnly}
        selected={state.selectedEvent}
        onChange={(change) =>
          update({
            ...(change.types !== undefined ? { historyTypes: change.types } : {}),
            ...(change.failuresOnly !== undefined ? { failuresOnly: change.failuresOnly } : {}),
            ...(change.selected !== undefined ? { selectedEvent: change.selected } : {}),
          })
        }
      />
    ),
    waits: () => (bundle ? <WaitsPanel waits={bundle.waits ?? []} /> : pending),
    tasks: () =>
      bundle ? <TasksPanel tasks={bundle.tasks ?? []} pending={debug.data?.pending_workflow_tasks} /> : pending,
    commands: () => (bundle ? <CommandsPanel commands={bundle.commands ?? []} /> : pending),
    relationships: () => (
      <RelationshipsPanel
        namespace={namespace}
        workflowId={workflowId}
        runId={runId}
        runs={runs.data?.runs ?? []}
        links={bundle?.links}
      />
    ),
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
        summary={bundle?.summary ?? null}
        liveness={liveness}
        runs={runs.data?.runs ?? []}
      />
      <RunActions
        namespace={namespace}
        workflowId={workflowId}
        runId={runId}
        describe={run}
        debug={debug.data ?? null}
      />
      {prepared ? (
        <BundleRetryForecast
          ledger={prepared.ledger}
          className="rounded-lg border border-line bg-panel px-4 py-2 text-sm"
        />
      ) : null}
      <ExceptionsTable rows={exceptions} complete={bundle !== null} />
      <Section
        title={t(`views.${state.view}`)}
        actions={
          <div role="tablist" aria-label={t("viewsLabel")} className="flex flex-wrap gap-1">
            {RUN_VIEWS.map((view) => (
              <Button
                key={view}
                variant="ghost"
                size="xs"
                role="tab"
                aria-selected={state.view === view}
                pressed={state.view === view}
                onClick={() => update({ view })}
              >
                {t(`views.${view}`)}
              </Button>
            ))}
          </div>
        }
      >
        {panel[state.view]()}
      </Section>
    </div>
  );
}
