"use client";

import { useCallback, useMemo, useState } from "react";
import Link from "@/components/ui/link";
import { useTranslations } from "next-intl";
import { useQuery } from "@tanstack/react-query";
import type { TaskQueueDetail, TaskQueueList, TaskQueueStats } from "@/lib/dw/schemas-fleet";
import { taskQueueQuery, taskQueuesQuery } from "@/lib/queries/fleet";
import { isForbidden, Panel, RequiresAdmin } from "@/components/metrics/panel";
import { Button } from "@/components/ui/button";
import { DataTable, dataColumns } from "@/components/ui/data-table";
import { QueryState } from "@/components/dw/query-state";
import { toErrorInfo } from "@/lib/views/error-info";
import { runHref } from "@/lib/routes/route-for";
import { useTimeFormat } from "@/components/hooks/use-time-format";
import { WorkerRoster } from "@/components/system/worker-roster";
import { BuildIdsPanel } from "@/components/system/build-ids-panel";

type Queue = TaskQueueList["task_queues"][number];

const queueCol = dataColumns<Queue>();

function useQueueColumns(namespace: string, openQueue: string | null, onToggle: (name: string) => void) {
  const t = useTranslations("workers");
  return useMemo(() => {
    const counts = (c: TaskQueueStats["workflow_tasks"]) =>
      t("counts", { ready: c?.ready_count ?? 0, leased: c?.leased_count ?? 0, expired: c?.expired_lease_count ?? 0 });
    return queueCol.columns([
      queueCol.accessor("name", {
        header: () => t("col.queue"),
        cell: (info) => (
          <>
            <Button
              variant="link"
              onClick={() => onToggle(info.getValue())}
              aria-expanded={openQueue === info.getValue()}
              className="font-mono"
            >
              {info.getValue()}
            </Button>
            {openQueue === info.getValue() ? <QueueDetail name={info.getValue()} namespace={namespace} /> : null}
          </>
        ),
      }),
      queueCol.display({
        id: "backlog",
        header: () => t("col.backlog"),
        cell: ({ row }) => (
          <>
            {row.original.stats?.approximate_backlog_count ?? 0}
            {row.original.stats?.approximate_backlog_age ? (
              <span className="ml-1 text-xs text-fg-muted">({row.original.stats.approximate_backlog_age})</span>
            ) : null}
          </>
        ),
      }),
      queueCol.display({
        id: "workflowTasks",
        header: () => t("col.workflowTasks"),
        cell: ({ row }) => counts(row.original.stats?.workflow_tasks),
      }),
      queueCol.display({
        id: "activityTasks",
        header: () => t("col.activityTasks"),
        cell: ({ row }) => counts(row.original.stats?.activity_tasks),
      }),
      queueCol.display({
        id: "pollers",
        header: () => t("col.pollers"),
        cell: ({ row }) =>
          t("pollers", {
            active: row.original.stats?.pollers?.active_count ?? 0,
            stale: row.original.stats?.pollers?.stale_count ?? 0,
          }),
      }),
      queueCol.display({
        id: "repair",
        header: () => t("col.repair"),
        cell: ({ row }) =>
          row.original.repair?.needs_attention ? (
            <span className="text-bad">{t("repairNeeded", { count: row.original.repair.candidates ?? 0 })}</span>
          ) : (
            <span className="text-fg-muted">{t("repairOk")}</span>
          ),
      }),
      queueCol.display({
        id: "admission",
        header: () => t("col.admission"),
        cell: ({ row }) =>
          t("admission", {
            workflow: row.original.admission?.workflow_tasks?.status ?? "–",
            activity: row.original.admission?.activity_tasks?.status ?? "–",
          }),
        meta: { className: "text-xs" },
      }),
    ]);
  }, [t, namespace, openQueue, onToggle]);
}

/** A panel's "requires admin" on 403; other errors fall back to QueryState's DwErrorState. */
function forbiddenAs(what: string) {
  return function ForbiddenAs(error: unknown) {
    return isForbidden(error) ? <RequiresAdmin what={what} /> : undefined;
  };
}

/** Workers (`GET /workers`, live and stale) and task queues (`GET /task-queues`, detail on demand). */
export function WorkersScreen({ namespace }: { namespace: string }) {
  const t = useTranslations("workers");
  const queues = useQuery(taskQueuesQuery(namespace));
  const [openQueue, setOpenQueue] = useState<string | null>(null);
  const toggleQueue = useCallback((name: string) => setOpenQueue((open) => (open === name ? null : name)), []);
  const queueColumns = useQueueColumns(namespace, openQueue, toggleQueue);
  const muted = (text: string) => <p className="text-sm text-fg-muted">{text}</p>;

  return (
    <div className="space-y-4">
      <WorkerRoster namespace={namespace} />

      <Panel title={t("queuesTitle")} testId="queues-table">
        <QueryState
          query={queues}
          isEmpty={(data) => data.task_queues.length === 0}
          empty={muted(t("noQueues"))}
          renderError={forbiddenAs(t("queuesTitle"))}
        >
          {(data) => (
            <DataTable
              columns={queueColumns}
              data={data.task_queues}
              getRowId={(queue) => queue.name}
              rowTestId="queue-row"
            />
          )}
        </QueryState>
      </Panel>

      <BuildIdsPanel
        namespace={namespace}
        queues={queues.data?.task_queues.map((q) => q.name) ?? []}
        openQueue={openQueue}
      />
    </div>
  );
}

function QueueDetail({ name, namespace }: { name: string; namespace: string }) {
  const t = useTranslations("workers.detail");
  const detail = useQuery(taskQueueQuery(namespace, name));
  return (
    <QueryState
      query={detail}
      loading={<p className="mt-2 text-xs text-fg-muted">{t("loading")}</p>}
      renderError={(error) => <p className="mt-2 text-xs text-bad">{toErrorInfo(error).message}</p>}
    >
      {(data) => <QueueDetailBody namespace={namespace} detail={data} />}
    </QueryState>
  );
}

function QueueDetailBody({ namespace, detail }: { namespace: string; detail: TaskQueueDetail }) {
  const t = useTranslations("workers.detail");
  const time = useTimeFormat();
  const leases = detail.current_leases ?? [];
  return (
    <div className="mt-2 space-y-2 text-xs" data-testid="queue-detail">
      <p className="font-medium">{t("pollers")}</p>
      <ul>
        {(detail.pollers ?? []).map((poller, index) => (
          <li key={poller.worker_id ?? `unnamed-${index}`} className={poller.is_stale ? "text-warn" : undefined}>
            <span className="font-mono">{poller.worker_id ?? "–"}</span> · {poller.status ?? "–"} ·{" "}
            {t("heartbeat", { at: time.dateTime(poller.last_heartbeat_at) })}
          </li>
        ))}
      </ul>
      <p className="font-medium">{t("leases", { count: leases.length })}</p>
      <ul>
        {leases.map((lease) => (
          <li key={lease.task_id} className={lease.is_expired ? "text-bad" : undefined}>
            {lease.task_type} · {lease.lease_owner ?? "–"} ·{" "}
            {t("expires", { at: time.dateTime(lease.lease_expires_at) })}
            {lease.workflow_id && lease.run_id ? (
              <>
                {" · "}
                <Link
                  href={runHref(namespace, lease.workflow_id, lease.run_id)}
                  className="font-mono text-accent hover:underline"
                >
                  {lease.workflow_id}
                </Link>
              </>
            ) : null}
          </li>
        ))}
      </ul>
    </div>
  );
}
