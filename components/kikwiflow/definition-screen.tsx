"use client";

import { useMemo } from "react";
import { useQuery } from "@tanstack/react-query";
import { useTranslations } from "next-intl";
import {
  mergeCounts,
  type NodeCounts,
  type NodeRowWithCounts,
  nodesInFlowOrder,
  processCounts,
  pulseCounts,
} from "@/lib/kikwiflow/definition-view";
import { countsShown } from "@/lib/kikwiflow/pulse-state";
import type { PulseState } from "@/lib/kikwiflow/pulse-state";
import { kikwiflowDefinitionQuery } from "@/lib/queries/kikwiflow";
import { useTimeFormat } from "@/components/hooks/use-time-format";
import { DataTable, dataColumns } from "@/components/ui/data-table";
import { Pill } from "@/components/ui/status-badge";
import { EngineError } from "@/components/kikwiflow/engine-error";
import { RetryPolicySummary } from "@/components/kikwiflow/task-ledger";
import { usePulse } from "@/components/kikwiflow/use-pulse";

const col = dataColumns<NodeRowWithCounts>();

/** "checking…" / "live" / "reconnecting…" / "stale since HH:MM:SS", with the time of the last frame. */
function PulseStatus({ state }: { state: PulseState }) {
  const t = useTranslations("kikwiflow.pulse");
  const time = useTimeFormat();
  const tone = {
    live: "success",
    connecting: "info",
    checking: "info",
    reconnecting: "warning",
    stale: "danger",
    failed: "danger",
  } as const;
  const label =
    state.phase === "stale"
      ? t("stale", { time: time.clock(state.droppedAt) })
      : state.phase === "failed"
        ? t("failed")
        : t(state.phase);
  return (
    <p
      className="flex flex-wrap items-center gap-2 text-sm"
      data-testid="kikwiflow-pulse-status"
      data-phase={state.phase}
    >
      <Pill tone={tone[state.phase]}>{label}</Pill>
      <span className="text-xs text-fg-muted" data-testid="kikwiflow-pulse-last-frame">
        {state.lastFrameAt === null ? t("noFrame") : t("lastFrame", { time: time.clock(state.lastFrameAt) })}
      </span>
      {state.problem ? <span className="text-xs text-fg-muted">{state.problem}</span> : null}
    </p>
  );
}

function Count({ value, testId, bad = false }: { value: number | null | undefined; testId: string; bad?: boolean }) {
  if (value === null || value === undefined) return <span className="text-fg-muted">–</span>;
  return (
    <span data-testid={testId} className={bad && value > 0 ? "font-semibold text-bad" : undefined}>
      {value}
    </span>
  );
}

/** A cell's column name, shown only on a phone where the rows stack as cards and the header is hidden. */
function PhoneLabel({ children }: { children: string }) {
  return <span className="mr-1 text-xs font-semibold text-fg-muted uppercase sm:hidden">{children}</span>;
}

// Below `sm` each node row is a three-column card: node, type, outgoing and retry policy on
// full-width lines, then the three counts side by side, so nothing scrolls sideways on a phone.
const PHONE_CARDS =
  "max-sm:[&_table]:block max-sm:[&_tbody]:block max-sm:[&_thead]:hidden max-sm:[&_tbody_tr]:grid max-sm:[&_tbody_tr]:grid-cols-3 max-sm:[&_tbody_tr]:py-1";
const FULL_LINE = { className: "max-sm:col-span-3 max-sm:py-0.5" };

function useNodeColumns() {
  const t = useTranslations("kikwiflow.definition");
  return useMemo(() => {
    const counts = (label: string, pick: (c: NodeCounts) => number | null, testId: string, bad = false) => ({
      cell: ({ row }: { row: { original: NodeRowWithCounts } }) => (
        <>
          <PhoneLabel>{label}</PhoneLabel>
          {row.original.counts ? (
            <Count value={pick(row.original.counts)} testId={testId} bad={bad} />
          ) : (
            <span className="text-fg-muted" title={row.original.taskLike ? t("noFrameYet") : t("noCounts")}>
              –
            </span>
          )}
        </>
      ),
    });
    return col.columns([
      col.accessor("id", {
        header: () => t("node"),
        meta: { className: "max-sm:col-span-3" },
        cell: ({ row }) => (
          <span className="flex flex-col">
            <span className="font-mono text-xs">{row.original.id}</span>
            {row.original.name ? <span className="text-xs text-fg-muted">{row.original.name}</span> : null}
          </span>
        ),
      }),
      col.accessor("type", {
        header: () => t("type"),
        meta: FULL_LINE,
        cell: ({ row }) => (
          <span className="flex flex-wrap items-center gap-1">
            <PhoneLabel>{t("type")}</PhoneLabel>
            <span className="font-mono text-xs">{row.original.type ?? "–"}</span>
            {row.original.reachable ? null : <Pill tone="neutral">{t("unreached")}</Pill>}
          </span>
        ),
      }),
      col.accessor("targets", {
        header: () => t("outgoing"),
        meta: FULL_LINE,
        cell: (info) => (
          <>
            <PhoneLabel>{t("outgoing")}</PhoneLabel>
            <span className="font-mono text-xs">{info.getValue().join(", ") || "–"}</span>
          </>
        ),
      }),
      col.accessor("retryPolicy", {
        header: () => t("retryPolicy"),
        meta: FULL_LINE,
        cell: ({ row }) => (
          <>
            <PhoneLabel>{t("retryPolicy")}</PhoneLabel>
            {row.original.type === "EXECUTABLE_TASK" ? (
              <span className="text-xs text-fg-muted">
                <RetryPolicySummary policy={row.original.retryPolicy} />
              </span>
            ) : (
              <span className="text-fg-muted">–</span>
            )}
          </>
        ),
      }),
      col.display({
        id: "running",
        header: () => t("running"),
        ...counts(t("running"), (c) => c.running, "kikwiflow-node-running"),
      }),
      col.display({
        id: "failed",
        header: () => t("failed"),
        ...counts(t("failed"), (c) => c.failed, "kikwiflow-node-failed", true),
      }),
      col.display({ id: "sla", header: () => t("sla"), ...counts(t("sla"), (c) => c.sla, "kikwiflow-node-sla") }),
    ]);
  }, [t]);
}

/** One definition: its nodes in flow order, with the engine's live counts beside each task-like node. */
export function KikwiflowDefinitionScreen({ definitionId }: { definitionId: string }) {
  const t = useTranslations("kikwiflow.definition");
  const query = useQuery(kikwiflowDefinitionQuery(definitionId));
  const { state, snapshot: last } = usePulse(definitionId);
  // Once the engine forgot the definition (404), its last counts describe nothing any more.
  const snapshot = countsShown(state) ? last : null;
  const rows = useMemo(() => (query.data ? nodesInFlowOrder(query.data) : []), [query.data]);
  const merged = useMemo(() => mergeCounts(rows, snapshot ? pulseCounts(snapshot) : null), [rows, snapshot]);
  const totals = snapshot ? processCounts(snapshot) : null;
  const columns = useNodeColumns();
  const definition = query.data;
  return (
    <section className="flex flex-col gap-3" data-testid="kikwiflow-definition">
      {query.isPending ? <p className="text-sm text-fg-muted">{t("loading")}</p> : null}
      {query.error ? <EngineError error={query.error} /> : null}
      {definition ? (
        <dl className="grid grid-cols-[max-content_1fr] gap-x-4 gap-y-1 rounded-lg border border-line bg-panel p-4 text-sm sm:grid-cols-[max-content_1fr_max-content_1fr]">
          <dt className="text-fg-muted">{t("key")}</dt>
          <dd className="font-mono text-xs" data-testid="kikwiflow-definition-key">
            {definition.key}
            {definition.version == null ? "" : ` v${definition.version}`}
          </dd>
          <dt className="text-fg-muted">{t("name")}</dt>
          <dd>{definition.name ?? "–"}</dd>
          <dt className="text-fg-muted">{t("description")}</dt>
          <dd className="sm:col-span-3">{definition.description || "–"}</dd>
          <dt className="text-fg-muted">{t("totals")}</dt>
          <dd className="sm:col-span-3" data-testid="kikwiflow-definition-totals">
            {totals ? t("totalsValue", { running: totals.running, failed: totals.failed }) : "–"}
          </dd>
        </dl>
      ) : null}
      <PulseStatus state={state} />
      {definition ? (
        <DataTable
          columns={columns}
          data={merged}
          getRowId={(row) => row.id}
          testId="kikwiflow-node-rows"
          rowTestId="kikwiflow-node-row"
          className={PHONE_CARDS}
        />
      ) : null}
      <p className="text-xs text-fg-muted">{t("countsNote")}</p>
    </section>
  );
}
