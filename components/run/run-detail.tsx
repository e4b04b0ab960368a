"use client";

import { useCallback, useMemo } from "react";
import type { ReactNode } from "react";
import { useSearchParams } from "next/navigation";
import { useTranslations } from "next-intl";
import { useQuery } from "@tanstack/react-query";
import type { RunDescription, WorkflowDebug } from "@/lib/dw/schemas-workflows";
import { attemptLedger } from "@/lib/views/attempts";
import { exceptionRows } from "@/lib/views/exceptions";
import { livenessLabel } from "@/lib/views/liveness";
import { timelineList, timelineRows } from "@/lib/views/timeline";
import { browserDwClient } from "@/components/providers/browser-dw-client";
import { DwErrorState } from "@/components/runs/dw-error-state";
import type { ErrorInfo } from "@/components/runs/error-info";
import { toErrorInfo } from "@/components/runs/error-info";
import { RunActions } from "@/components/actions/RunActions";
import { RetryForecast } from "@/components/actions/RetryForecast";
import { useTicker } from "@/components/runs/use-time-format";
import { ActivitiesLedger } from "./activities-ledger";
import { ExceptionsTable } from "./exceptions-table";
import { HistoryView } from "./history-view";
import { CommandsPanel, RelationshipsPanel, TasksPanel, WaitsPanel } from "./panels";
import { RunHeader } from "./run-header";
import { Muted, Section } from "./section";
import { TimelineView } from "./timeline-view";
import { useHistory } from "./use-history";
import type { RunView, RunViewState } from "./url-state";
import { RUN_VIEWS, parseRunViewState, runViewQueryString } from "./url-state";

const OPEN_REFRESH_MS = 5_000;
const EXPORT_REFRESH_MS = 10_000;

interface RunDetailProps {
  namespace: string;
  workflowId: string;
  runId: string;
  initialDescribe: RunDescription | null;
  initialDebug: WorkflowDebug | null;
  initialError: ErrorInfo | null;
}

function HistoryTab({ workflowId, runId, live, state, update }: { workflowId: string; runId: string; live: boolean; state: RunViewState; update: (change: Partial<RunViewState>) => void }) {
  const history = useHistory(workflowId, runId, live);
  return (
    <HistoryView
      history={history}
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
  );
}

/**
 * One run: the header and the exceptions render from describe + debug (server-rendered, no history
 * needed); the export bundle then fills in the full exceptions, timeline, attempt ledger, waits,
 * tasks and commands, and the History tab pages and tails the event log on its own.
 */
export function RunDetail({ namespace, workflowId, runId, initialDescribe, initialDebug, initialError }: RunDetailProps) {
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
  const base = ["run", namespace, workflowId, runId] as const;

  const describe = useQuery({
    queryKey: [...base, "describe"],
    queryFn: ({ signal }) => browserDwClient.describeRun(workflowId, runId, { signal }),
    initialData: initialDescribe ?? undefined,
    refetchInterval: (query) => (query.state.data?.is_terminal ? false : OPEN_REFRESH_MS),
    retry: false,
  });
  const open = describe.data ? !describe.data.is_terminal : true;
  const debug = useQuery({
    queryKey: [...base, "debug"],
    queryFn: ({ signal }) => browserDwClient.debugRun(workflowId, runId, {}, { signal }),
    initialData: initialDebug ?? undefined,
    refetchInterval: open ? OPEN_REFRESH_MS : false,
    retry: false,
  });
  const exported = useQuery({
    queryKey: [...base, "export"],
    queryFn: ({ signal }) => browserDwClient.exportHistory(workflowId, runId, { signal }),
    refetchInterval: open ? EXPORT_REFRESH_MS : false,
    retry: 1,
  });
  const runs = useQuery({
    queryKey: ["runs-of", namespace, workflowId],
    queryFn: ({ signal }) => browserDwClient.listRuns(workflowId, { signal }),
    refetchInterval: open ? 30_000 : false,
    retry: false,
  });
  const now = useTicker(open ? 5_000 : 60_000);

  const bundle = exported.data ?? null;
  const exceptions = useMemo(
    () => (bundle ? exceptionRows(bundle) : exceptionRows({ recent_failures: debug.data?.recent_failures ?? [] })),
    [bundle, debug.data],
  );
  const ledger = useMemo(() => (bundle ? attemptLedger(bundle.history_events, bundle.activities ?? []) : []), [bundle]);
  // Built once per bundle; the ticking "now" only stretches the axis of open bars (see TimelineView).
  const chart = useMemo(() => (bundle ? timelineRows(bundle.history_events, { activities: bundle.activities ?? [] }) : null), [bundle]);
  const list = useMemo(() => (bundle ? timelineList(bundle.history_events) : []), [bundle]);

  const run = describe.data;
  if (!run) {
    const error = describe.error ? toErrorInfo(describe.error) : initialError;
    return error ? <DwErrorState error={error} onRetry={() => void describe.refetch()} /> : <Muted>{t("loading")}</Muted>;
  }
  const liveness = livenessLabel({
    ...(bundle?.summary ?? debug.data?.execution ?? {}),
    is_current_run: run.is_current_run,
    is_terminal: run.is_terminal,
    status: run.status,
  });

  const pending = <Muted>{exported.error ? toErrorInfo(exported.error).message : t("loadingBundle")}</Muted>;
  const panel: Record<RunView, () => ReactNode> = {
    timeline: () => (chart ? <TimelineView chart={chart} now={now} list={list} mode={state.timelineMode} onMode={(mode) => update({ timelineMode: mode })} /> : pending),
    activities: () => (bundle ? <ActivitiesLedger activities={ledger} /> : pending),
    history: () => <HistoryTab workflowId={workflowId} runId={runId} live={open} state={state} update={update} />,
    waits: () => (bundle ? <WaitsPanel waits={bundle.waits ?? []} /> : pending),
    tasks: () => (bundle ? <TasksPanel tasks={bundle.tasks ?? []} pending={debug.data?.pending_workflow_tasks} /> : pending),
    commands: () => (bundle ? <CommandsPanel commands={bundle.commands ?? []} /> : pending),
    relationships: () => <RelationshipsPanel workflowId={workflowId} runId={runId} runs={runs.data?.runs ?? []} links={bundle?.links} />,
  };

  return (
    <div className="space-y-4">
      {describe.error ? <DwErrorState error={toErrorInfo(describe.error)} onRetry={() => void describe.refetch()} /> : null}
      <RunHeader describe={run} debug={debug.data ?? null} summary={bundle?.summary ?? null} liveness={liveness} runs={runs.data?.runs ?? []} />
      <RunActions workflowId={workflowId} runId={runId} describe={run} debug={debug.data ?? null} />
      <RetryForecast activities={ledger} className="rounded-lg border border-line bg-panel px-4 py-2 text-sm" />
      <ExceptionsTable rows={exceptions} complete={bundle !== null} />
      <Section
        title={t(`views.${state.view}`)}
        actions={
          <div role="tablist" aria-label={t("viewsLabel")} className="flex flex-wrap gap-1">
            {RUN_VIEWS.map((view) => (
              <button
                key={view}
                type="button"
                role="tab"
                aria-selected={state.view === view}
                onClick={() => update({ view })}
                className={`h-7 rounded px-2 text-xs font-medium ${state.view === view ? "bg-accent text-accent-fg" : "text-fg-muted hover:bg-panel-muted hover:text-fg"}`}
              >
                {t(`views.${view}`)}
              </button>
            ))}
          </div>
        }
      >
        {panel[state.view]()}
      </Section>
    </div>
  );
}
