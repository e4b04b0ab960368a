"use client";

import { useState } from "react";
import Link from "next/link";
import { useTranslations } from "next-intl";
import { useQuery } from "@tanstack/react-query";
import type { TaskQueueStats } from "@/lib/dw/schemas-fleet";
import { taskQueueQuery, taskQueuesQuery, workersQuery } from "@/lib/queries/fleet";
import { isForbidden, Panel, RequiresAdmin } from "@/components/metrics/panel";
import { DwErrorState } from "@/components/ui/dw-error-state";
import { toErrorInfo } from "@/lib/views/error-info";
import { runHref } from "@/lib/routes/route-for";
import { useTimeFormat } from "@/components/hooks/use-time-format";

const cell = "px-2 py-1.5";

/** Workers (`GET /workers`) and task queues (`GET /task-queues`, detail on demand). */
export function WorkersScreen({ namespace }: { namespace: string }) {
  const t = useTranslations("workers");
  const time = useTimeFormat();
  const workers = useQuery(workersQuery(namespace));
  const queues = useQuery(taskQueuesQuery(namespace));
  const [openQueue, setOpenQueue] = useState<string | null>(null);

  return (
    <div className="space-y-4">
      <Panel title={t("workersTitle")} testId="workers-table">
        <QueryStates
          query={workers}
          what={t("workersTitle")}
          empty={workers.data?.workers.length === 0 ? t("noWorkers") : null}
        />
        {workers.data?.workers.length ? (
          <div className="overflow-x-auto">
            <table className="w-full text-left text-sm">
              <thead className="text-xs text-fg-muted">
                <tr>
                  <th className={cell}>{t("col.worker")}</th>
                  <th className={cell}>{t("col.queue")}</th>
                  <th className={cell}>{t("col.status")}</th>
                  <th className={cell}>{t("col.runtime")}</th>
                  <th className={cell}>{t("col.build")}</th>
                  <th className={cell}>{t("col.heartbeat")}</th>
                  <th className={cell}>{t("col.types")}</th>
                </tr>
              </thead>
              <tbody>
                {workers.data.workers.map((worker) => (
                  <tr
                    key={worker.worker_id}
                    className="border-t border-line/60"
                    data-testid="worker-row"
                    data-status={worker.status}
                  >
                    <td className={`${cell} font-mono`}>{worker.worker_id}</td>
                    <td className={cell}>{worker.task_queue ?? "–"}</td>
                    <td className={`${cell} ${worker.status === "active" ? "text-ok" : "text-warn"}`}>
                      {worker.status}
                    </td>
                    <td className={cell}>{[worker.runtime, worker.sdk_version].filter(Boolean).join(" ") || "–"}</td>
                    <td className={`${cell} font-mono`}>{worker.build_id ?? "–"}</td>
                    <td className={cell}>{time.dateTime(worker.last_heartbeat_at)}</td>
                    <td className={`${cell} text-xs text-fg-muted`}>
                      {[...(worker.supported_workflow_types ?? []), ...(worker.supported_activity_types ?? [])].join(
                        ", ",
                      ) || "–"}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ) : null}
      </Panel>

      <Panel title={t("queuesTitle")} testId="queues-table">
        <QueryStates
          query={queues}
          what={t("queuesTitle")}
          empty={queues.data?.task_queues.length === 0 ? t("noQueues") : null}
        />
        {queues.data?.task_queues.length ? (
          <div className="overflow-x-auto">
            <table className="w-full text-left text-sm">
              <thead className="text-xs text-fg-muted">
                <tr>
                  <th className={cell}>{t("col.queue")}</th>
                  <th className={cell}>{t("col.backlog")}</th>
                  <th className={cell}>{t("col.workflowTasks")}</th>
                  <th className={cell}>{t("col.activityTasks")}</th>
                  <th className={cell}>{t("col.pollers")}</th>
                  <th className={cell}>{t("col.repair")}</th>
                  <th className={cell}>{t("col.admission")}</th>
                </tr>
              </thead>
              <tbody>
                {queues.data.task_queues.map((queue) => {
                  const stats = queue.stats;
                  const counts = (c: TaskQueueStats["workflow_tasks"]) =>
                    t("counts", {
                      ready: c?.ready_count ?? 0,
                      leased: c?.leased_count ?? 0,
                      expired: c?.expired_lease_count ?? 0,
                    });
                  return (
                    <tr key={queue.name} className="border-t border-line/60 align-top" data-testid="queue-row">
                      <td className={cell}>
                        <button
                          type="button"
                          onClick={() => setOpenQueue(openQueue === queue.name ? null : queue.name)}
                          aria-expanded={openQueue === queue.name}
                          className="font-mono text-accent hover:underline"
                        >
                          {queue.name}
                        </button>
                        {openQueue === queue.name ? <QueueDetail name={queue.name} namespace={namespace} /> : null}
                      </td>
                      <td className={cell}>
                        {stats?.approximate_backlog_count ?? 0}
                        {stats?.approximate_backlog_age ? (
                          <span className="ml-1 text-xs text-fg-muted">({stats.approximate_backlog_age})</span>
                        ) : null}
                      </td>
                      <td className={cell}>{counts(stats?.workflow_tasks)}</td>
                      <td className={cell}>{counts(stats?.activity_tasks)}</td>
                      <td className={cell}>
                        {t("pollers", {
                          active: stats?.pollers?.active_count ?? 0,
                          stale: stats?.pollers?.stale_count ?? 0,
                        })}
                      </td>
                      <td className={`${cell} ${queue.repair?.needs_attention ? "text-bad" : "text-fg-muted"}`}>
                        {queue.repair?.needs_attention
                          ? t("repairNeeded", { count: queue.repair.candidates ?? 0 })
                          : t("repairOk")}
                      </td>
                      <td className={`${cell} text-xs`}>
                        {t("admission", {
                          workflow: queue.admission?.workflow_tasks?.status ?? "–",
                          activity: queue.admission?.activity_tasks?.status ?? "–",
                        })}
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
        ) : null}
      </Panel>
    </div>
  );
}

function QueueDetail({ name, namespace }: { name: string; namespace: string }) {
  const t = useTranslations("workers.detail");
  const time = useTimeFormat();
  const detail = useQuery(taskQueueQuery(namespace, name));
  if (detail.isError) return <p className="mt-2 text-xs text-bad">{toErrorInfo(detail.error).message}</p>;
  if (!detail.data) return <p className="mt-2 text-xs text-fg-muted">{t("loading")}</p>;
  const leases = detail.data.current_leases ?? [];
  return (
    <div className="mt-2 space-y-2 text-xs" data-testid="queue-detail">
      <p className="font-medium">{t("pollers")}</p>
      <ul>
        {(detail.data.pollers ?? []).map((poller, index) => (
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

/** A panel's error (or "requires admin" on 403) and empty states, the same for every list here. */
function QueryStates({
  query,
  what,
  empty,
}: {
  query: { isError: boolean; error: unknown; refetch: () => unknown };
  what: string;
  empty: string | null;
}) {
  return (
    <>
      {query.isError ? (
        isForbidden(query.error) ? (
          <RequiresAdmin what={what} />
        ) : (
          <DwErrorState error={toErrorInfo(query.error)} onRetry={() => void query.refetch()} />
        )
      ) : null}
      {empty ? <p className="text-sm text-fg-muted">{empty}</p> : null}
    </>
  );
}
