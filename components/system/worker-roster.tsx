"use client";

import { Fragment, useCallback, useMemo, useState, useSyncExternalStore } from "react";
import type { ReactNode } from "react";
import { useLocale, useTranslations } from "next-intl";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import type { Worker } from "@/lib/dw/schemas-fleet";
import { staleWorkersQuery, workersQuery } from "@/lib/queries/fleet";
import { isForbidden, Panel, RequiresAdmin } from "@/components/metrics/panel";
import { Button } from "@/components/ui/button";
import { DataTable, dataColumns } from "@/components/ui/data-table";
import { Dialog } from "@/components/ui/dialog";
import { QueryState } from "@/components/dw/query-state";
import { useGuardRefusal } from "@/components/actions/use-guard-refusal";
import { useTicker, useTimeFormat } from "@/components/hooks/use-time-format";
import { removeWorker } from "@/components/system/remove-worker";
import type { RemovalOutcome } from "@/components/system/remove-worker";
import {
  formatBytes,
  mergeRoster,
  parseWorkerColumns,
  serializeWorkerColumns,
  slotUse,
  toggleWorkerColumn,
  WORKER_COLUMNS,
  WORKER_COLUMNS_STORAGE_KEY,
  workerFreshness,
  workerProcess,
  workerSlots,
} from "@/lib/views/workers";
import type { Freshness, WorkerColumn } from "@/lib/views/workers";

type Row = { worker: Worker; freshness: Freshness };

const col = dataColumns<Row>();

// ---------------------------------------------------------------- the column choice (per browser profile)

const listeners = new Set<() => void>();

function readStoredColumns(): string | null {
  try {
    return window.localStorage.getItem(WORKER_COLUMNS_STORAGE_KEY);
  } catch {
    return null;
  }
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  const onStorage = (event: StorageEvent) => {
    if (event.key === WORKER_COLUMNS_STORAGE_KEY) listener();
  };
  window.addEventListener("storage", onStorage);
  return () => {
    listeners.delete(listener);
    window.removeEventListener("storage", onStorage);
  };
}

/** This person's columns, kept in the browser (the server render shows the default). */
function useWorkerColumnChoice(): [WorkerColumn[], (next: WorkerColumn[]) => void] {
  const stored = useSyncExternalStore(subscribe, readStoredColumns, () => null);
  const columns = useMemo(() => parseWorkerColumns(stored), [stored]);
  const choose = useCallback((next: WorkerColumn[]) => {
    try {
      window.localStorage.setItem(WORKER_COLUMNS_STORAGE_KEY, serializeWorkerColumns(next));
    } catch {
      // Storage refused (private mode): the choice lasts until the page reloads at most.
    }
    for (const listener of listeners) listener();
  }, []);
  return [columns, choose];
}

// ---------------------------------------------------------------- cells

function FreshnessBadge({ freshness, status }: { freshness: Freshness; status: string }) {
  const t = useTranslations("workers.freshness");
  const time = useTimeFormat();
  const age = freshness.ageSeconds === null ? null : time.duration(freshness.ageSeconds * 1000);
  const tone = freshness.state === "live" ? "text-ok" : freshness.state === "stale" ? "text-warn" : "text-fg-muted";
  const label =
    freshness.state === "stale"
      ? t("stale")
      : freshness.state === "unknown"
        ? t("unknown")
        : status === "active"
          ? t("live")
          : status;
  return (
    <span className={`whitespace-nowrap ${tone}`} data-testid="worker-freshness" data-freshness={freshness.state}>
      <span aria-hidden="true">{freshness.state === "live" ? "●" : freshness.state === "stale" ? "◌" : "?"}</span>{" "}
      {label}
      {age !== null ? <span className="ml-1 text-xs text-fg-muted">{t("age", { age })}</span> : null}
    </span>
  );
}

function Slots({ worker }: { worker: Worker }) {
  const t = useTranslations("workers.slots");
  const families = workerSlots(worker);
  if (families.length === 0) return <>–</>;
  return (
    <ul className="space-y-0.5 text-xs" data-testid="worker-slots">
      {families.map((family) => {
        const use = slotUse(family);
        return (
          <li key={family.family} className="flex items-center gap-1.5 whitespace-nowrap">
            <span className="w-16 text-fg-muted">{t(family.family)}</span>
            {family.available === null ? (
              <span>{t("capacityOnly", { capacity: family.capacity ?? "–" })}</span>
            ) : (
              <span className={use !== null && use >= 1 ? "text-warn" : undefined}>
                {t("free", { available: family.available, capacity: family.capacity ?? "–" })}
              </span>
            )}
          </li>
        );
      })}
    </ul>
  );
}

function ProcessCell({ worker }: { worker: Worker }) {
  const t = useTranslations("workers.process");
  const locale = useLocale();
  const time = useTimeFormat();
  const facts = workerProcess(worker);
  if (facts === null) return <span className="text-fg-muted">{t("notReported")}</span>;
  const parts = [
    facts.host !== null ? facts.host : null,
    facts.pid !== null ? t("pid", { pid: facts.pid }) : null,
    facts.cpuPercent !== null ? t("cpu", { percent: Math.round(facts.cpuPercent * 10) / 10 }) : null,
    facts.memoryBytes !== null ? formatBytes(facts.memoryBytes, locale) : null,
    facts.uptimeSeconds !== null ? t("uptime", { uptime: time.duration(facts.uptimeSeconds * 1000) }) : null,
  ].filter((part): part is string => part !== null);
  // Each fact stays whole; the line wraps between them, so a narrow column or a phone card shows all.
  return (
    <span className="flex flex-wrap gap-x-1.5 text-xs" data-testid="worker-process">
      {parts.map((part, index) => (
        <Fragment key={index}>
          {index > 0 ? " " : null}
          <span className="whitespace-nowrap">
            {index > 0 ? "· " : null}
            {part}
          </span>
        </Fragment>
      ))}
    </span>
  );
}

function useColumns(onRemove: (workerId: string) => void, refusal: string | null, busy: boolean) {
  const t = useTranslations("workers");
  const time = useTimeFormat();
  return useMemo(() => {
    const byId: Record<WorkerColumn, ReturnType<typeof col.display>> = {
      worker: col.display({
        id: "worker",
        header: () => t("col.worker"),
        // Ids never wrap mid-word across three lines (issue 15): one line, the full id on hover.
        cell: ({ row }) => (
          <>
            <span className="block max-w-72 truncate font-mono" title={row.original.worker.worker_id}>
              {row.original.worker.worker_id}
            </span>
            {/* Beside the id, so the action stays in view however wide the chosen columns make the table. */}
            {row.original.freshness.state === "live" ? null : (
              <Button
                variant="secondary"
                size="xs"
                className="mt-1"
                disabled={refusal !== null || busy}
                title={refusal ?? undefined}
                aria-label={t("remove.label", { worker: row.original.worker.worker_id })}
                data-testid="remove-worker"
                onClick={() => onRemove(row.original.worker.worker_id)}
              >
                {t("remove.button")}
              </Button>
            )}
          </>
        ),
      }),
      queue: col.display({
        id: "queue",
        header: () => t("col.queue"),
        cell: ({ row }) => row.original.worker.task_queue ?? "–",
      }),
      status: col.display({
        id: "status",
        header: () => t("col.status"),
        cell: ({ row }) => <FreshnessBadge freshness={row.original.freshness} status={row.original.worker.status} />,
      }),
      heartbeat: col.display({
        id: "heartbeat",
        header: () => t("col.heartbeat"),
        cell: ({ row }) => {
          const at = row.original.worker.last_heartbeat_at;
          const every = row.original.worker.heartbeat_interval_seconds;
          return (
            <span className="whitespace-nowrap">
              {at ? time.dateTime(at) : "–"}
              {every ? <span className="block text-xs text-fg-muted">{t("every", { seconds: every })}</span> : null}
            </span>
          );
        },
      }),
      slots: col.display({
        id: "slots",
        header: () => t("col.slots"),
        cell: ({ row }) => <Slots worker={row.original.worker} />,
      }),
      concurrency: col.display({
        id: "concurrency",
        header: () => t("col.concurrency"),
        cell: ({ row }) => {
          const w = row.original.worker;
          return (
            <span className="text-xs whitespace-nowrap">
              {t("concurrency", {
                workflow: w.max_concurrent_workflow_tasks ?? "–",
                activity: w.max_concurrent_activity_tasks ?? "–",
                session: w.max_concurrent_worker_sessions ?? "–",
              })}
            </span>
          );
        },
      }),
      process: col.display({
        id: "process",
        header: () => t("col.process"),
        cell: ({ row }) => <ProcessCell worker={row.original.worker} />,
      }),
      runtime: col.display({
        id: "runtime",
        header: () => t("col.runtime"),
        cell: ({ row }) =>
          [row.original.worker.runtime, row.original.worker.sdk_version].filter(Boolean).join(" ") || "–",
      }),
      build: col.display({
        id: "build",
        header: () => t("col.build"),
        cell: ({ row }) => <span className="font-mono">{row.original.worker.build_id ?? "–"}</span>,
      }),
      types: col.display({
        id: "types",
        header: () => t("col.types"),
        cell: ({ row }) => (
          <span className="text-xs text-fg-muted">
            {[
              ...(row.original.worker.supported_workflow_types ?? []),
              ...(row.original.worker.supported_activity_types ?? []),
            ].join(", ") || "–"}
          </span>
        ),
      }),
      capabilities: col.display({
        id: "capabilities",
        header: () => t("col.capabilities"),
        cell: ({ row }) => (
          <span className="text-xs text-fg-muted">{(row.original.worker.capabilities ?? []).join(", ") || "–"}</span>
        ),
      }),
      registered: col.display({
        id: "registered",
        header: () => t("col.registered"),
        cell: ({ row }) => {
          const at = row.original.worker.registered_at;
          return at ? <span className="whitespace-nowrap">{time.dateTime(at)}</span> : "–";
        },
      }),
    };
    return byId;
  }, [t, time, onRemove, refusal, busy]);
}

function ColumnChooser({ chosen, onChange }: { chosen: WorkerColumn[]; onChange: (next: WorkerColumn[]) => void }) {
  const t = useTranslations("workers");
  return (
    <details className="relative" data-testid="worker-columns">
      <summary className="cursor-pointer rounded border border-line px-2 py-1 text-xs select-none hover:bg-canvas">
        {t("columns.button", { count: chosen.length })}
      </summary>
      <fieldset className="absolute right-0 z-10 mt-1 w-56 space-y-1 rounded border border-line bg-panel p-2 shadow-lg">
        <legend className="sr-only">{t("columns.legend")}</legend>
        {WORKER_COLUMNS.map((column) => (
          <label key={column} className="flex items-center gap-2 text-sm">
            <input
              type="checkbox"
              checked={chosen.includes(column)}
              disabled={column === "worker"}
              onChange={() => onChange(toggleWorkerColumn(chosen, column))}
            />
            {t(`col.${column}`)}
          </label>
        ))}
      </fieldset>
    </details>
  );
}

function WorkerCard({ row, remove }: { row: Row; remove: ReactNode }) {
  const t = useTranslations("workers");
  const w = row.worker;
  return (
    <li
      className="space-y-1.5 rounded border border-line p-3"
      data-testid="worker-card"
      data-freshness={row.freshness.state}
    >
      <div className="flex items-start justify-between gap-2">
        <span className="min-w-0 font-mono text-sm break-all">{w.worker_id}</span>
        {remove}
      </div>
      <FreshnessBadge freshness={row.freshness} status={w.status} />
      <dl className="grid grid-cols-[auto_1fr] gap-x-3 gap-y-1 text-xs">
        <dt className="text-fg-muted">{t("col.queue")}</dt>
        <dd className="break-all">{w.task_queue ?? "–"}</dd>
        <dt className="text-fg-muted">{t("col.runtime")}</dt>
        <dd>{[w.runtime, w.sdk_version].filter(Boolean).join(" ") || "–"}</dd>
        <dt className="text-fg-muted">{t("col.build")}</dt>
        <dd className="font-mono break-all">{w.build_id ?? "–"}</dd>
        <dt className="text-fg-muted">{t("col.slots")}</dt>
        <dd>
          <Slots worker={w} />
        </dd>
        <dt className="text-fg-muted">{t("col.process")}</dt>
        <dd className="min-w-0 overflow-hidden">
          <ProcessCell worker={w} />
        </dd>
      </dl>
    </li>
  );
}

function OutcomeLine({ outcome }: { outcome: RemovalOutcome }) {
  const t = useTranslations("workers.remove");
  switch (outcome.kind) {
    case "confirmed":
      return (
        <p className="text-ok">{t("confirmed", { worker: outcome.workerId, count: outcome.recoveredTasks ?? 0 })}</p>
      );
    case "unconfirmed":
      return <p className="text-warn">{t("unconfirmed", { worker: outcome.workerId })}</p>;
    case "rejected":
      return <p className="text-bad">{t("rejected", { reason: outcome.reason, message: outcome.message })}</p>;
    case "failed":
      return <p className="text-bad">{t("failed", { message: outcome.message })}</p>;
  }
}

function ConfirmRemoval({
  workerId,
  onClose,
  onConfirm,
}: {
  workerId: string | null;
  onClose: () => void;
  onConfirm: (workerId: string) => void;
}) {
  const t = useTranslations("workers.remove");
  return (
    <Dialog
      open={workerId !== null}
      onClose={onClose}
      labelledBy="confirm-remove-worker-title"
      testId="confirm-remove-worker"
    >
      {workerId ? (
        <div className="space-y-4 p-5">
          <h2 id="confirm-remove-worker-title" className="text-base font-semibold break-words">
            {t("title", { worker: workerId })}
          </h2>
          <p className="text-sm break-words">{t("body")}</p>
          <div className="flex justify-end gap-2">
            <Button variant="secondary" onClick={onClose}>
              {t("cancel")}
            </Button>
            <Button variant="primary" data-testid="confirm-remove-worker-button" onClick={() => onConfirm(workerId)}>
              {t("submit", { worker: workerId })}
            </Button>
          </div>
        </div>
      ) : null}
    </Dialog>
  );
}

/**
 * The namespace's workers: the live roster and the stale one (a newer server lists them apart),
 * each worker's freshness by the server's own rule with its heartbeat's age, task slots, process,
 * the columns this person chose, and an admin's removal of a dead worker, confirmed by reading the
 * roster back.
 */
export function WorkerRoster({ namespace }: { namespace: string }) {
  const t = useTranslations("workers");
  const queryClient = useQueryClient();
  const liveOptions = workersQuery(namespace);
  const staleOptions = staleWorkersQuery(namespace);
  const live = useQuery(liveOptions);
  const stale = useQuery(staleOptions);
  const now = useTicker(10_000);
  const [chosen, choose] = useWorkerColumnChoice();
  const [showStale, setShowStale] = useState(false);
  const [pending, setPending] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<RemovalOutcome | null>(null);
  const refusal = useGuardRefusal("admin", {
    checking: t("remove.checking"),
    readOnly: t("remove.readOnly"),
    token: (role) => t("remove.tokenRole", { role }),
  });
  const onRemove = useCallback((workerId: string) => setPending(workerId), []);
  const byId = useColumns(onRemove, refusal, busy);

  const confirm = async (workerId: string) => {
    setPending(null);
    setBusy(true);
    const result = await removeWorker(namespace, workerId, async () => {
      await Promise.all([
        queryClient.invalidateQueries({ queryKey: liveOptions.queryKey }),
        queryClient.invalidateQueries({ queryKey: staleOptions.queryKey }),
      ]);
      const [l, s] = await Promise.all([queryClient.fetchQuery(liveOptions), queryClient.fetchQuery(staleOptions)]);
      return mergeRoster(l, s).workers;
    });
    setOutcome(result);
    setBusy(false);
  };

  const roster = mergeRoster(live.data, stale.data);
  const rows: Row[] = roster.workers.map((worker) => ({
    worker,
    freshness: workerFreshness(worker, roster.staleAfterSeconds, now),
  }));
  const staleCount = rows.filter((row) => row.freshness.state !== "live").length;
  // Stale workers stay listed until someone removes them; they are folded away so the live fleet
  // reads first, with their count in the toggle. With nothing else registered they are the whole answer.
  const fold = !showStale && staleCount < rows.length;
  const shown = fold ? rows.filter((row) => row.freshness.state === "live") : rows;
  const columns = chosen.map((id) => byId[id]);

  return (
    <Panel title={t("workersTitle")} testId="workers-table">
      <ConfirmRemoval workerId={pending} onClose={() => setPending(null)} onConfirm={confirm} />
      <QueryState
        query={{ data: live.data ? roster : undefined, error: live.error, refetch: live.refetch }}
        isEmpty={() => rows.length === 0}
        empty={<p className="text-sm text-fg-muted">{t("noWorkers")}</p>}
        renderError={(error) => (isForbidden(error) ? <RequiresAdmin what={t("workersTitle")} /> : undefined)}
      >
        {() => (
          <>
            <div className="mb-2 flex flex-wrap items-center justify-between gap-2 text-xs text-fg-muted">
              <span data-testid="worker-summary">
                {t("summary", { live: rows.length - staleCount, stale: staleCount })}
                {roster.staleAfterSeconds !== null
                  ? ` · ${t("staleAfter", { seconds: roster.staleAfterSeconds })}`
                  : ` · ${t("staleByServer")}`}
              </span>
              <span className="hidden md:inline">
                <ColumnChooser chosen={chosen} onChange={choose} />
              </span>
            </div>
            <div className="hidden md:block">
              <DataTable
                columns={columns}
                data={shown}
                getRowId={(row) => row.worker.worker_id}
                rowTestId="worker-row"
                rowData={(row) => ({ "data-status": row.worker.status, "data-freshness": row.freshness.state })}
              />
            </div>
            <ul className="space-y-2 md:hidden">
              {shown.map((row) => (
                <WorkerCard
                  key={row.worker.worker_id}
                  row={row}
                  remove={
                    row.freshness.state === "live" ? null : (
                      <Button
                        variant="secondary"
                        size="xs"
                        disabled={refusal !== null || busy}
                        title={refusal ?? undefined}
                        aria-label={t("remove.label", { worker: row.worker.worker_id })}
                        onClick={() => onRemove(row.worker.worker_id)}
                      >
                        {t("remove.button")}
                      </Button>
                    )
                  }
                />
              ))}
            </ul>
            {staleCount > 0 && staleCount < rows.length ? (
              <Button
                variant="link"
                size="xs"
                className="mt-2"
                data-testid="toggle-stale-workers"
                onClick={() => setShowStale((value) => !value)}
              >
                {showStale ? t("hideStale", { count: staleCount }) : t("showStale", { count: staleCount })}
              </Button>
            ) : null}
            {refusal !== null && staleCount > 0 ? (
              <p className="mt-2 text-xs text-fg-muted" data-testid="remove-refusal">
                {refusal}
              </p>
            ) : null}
          </>
        )}
      </QueryState>
      <div role="status" aria-live="polite" data-testid="worker-outcome" className="mt-2 text-sm">
        {outcome ? <OutcomeLine outcome={outcome} /> : null}
      </div>
    </Panel>
  );
}
