"use client";

import Link from "next/link";
import { useTranslations } from "next-intl";
import type { HistoryExport } from "@/lib/dw/schemas-export";
import type { RunListItem, WorkflowDebug } from "@/lib/dw/schemas-workflows";
import { runHref, workflowHref } from "@/lib/routes/route-for";
import { StatusBadge } from "@/components/ui/status-badge";
import { useTimeFormat } from "@/components/hooks/use-time-format";
import { ShowMore, useShownRows } from "@/components/ui/show-more";
import { Muted, TD, TH } from "@/components/run-detail/section";

function text(value: unknown): string {
  if (value === null || value === undefined || value === "") return "–";
  return typeof value === "string" || typeof value === "number" || typeof value === "boolean"
    ? String(value)
    : JSON.stringify(value);
}

export function WaitsPanel({ waits }: { waits: NonNullable<HistoryExport["waits"]> }) {
  const t = useTranslations("run.waits");
  const time = useTimeFormat();
  const { shown, more, hidden } = useShownRows(waits);
  if (waits.length === 0) return <Muted>{t("none")}</Muted>;
  return (
    <div className="overflow-x-auto">
      <table className="w-full text-sm" data-testid="waits-table">
        <thead className="border-b border-line">
          <tr>
            <th className={TH}>{t("kind")}</th>
            <th className={TH}>{t("status")}</th>
            <th className={TH}>{t("summary")}</th>
            <th className={TH}>{t("opened")}</th>
            <th className={TH}>{t("deadline")}</th>
            <th className={TH}>{t("resolved")}</th>
          </tr>
        </thead>
        <tbody>
          {shown.map((wait) => (
            <tr key={wait.id} className="border-b border-line last:border-0">
              <td className={TD}>{wait.kind}</td>
              <td className={TD}>
                <StatusBadge status={wait.status} />
              </td>
              <td className={TD}>{text(wait.summary ?? wait.target_name)}</td>
              <td className={`${TD} whitespace-nowrap`}>{time.dateTime(wait.opened_at)}</td>
              <td className={`${TD} whitespace-nowrap`}>{time.dateTime(wait.deadline_at)}</td>
              <td className={`${TD} whitespace-nowrap`}>{time.dateTime(wait.resolved_at)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <ShowMore hidden={hidden} onMore={more} testId="waits-show-more" />
    </div>
  );
}

/** Tasks with their transport state: the export row's, else the debug view of the same open task. */
export function TasksPanel({
  tasks,
  pending,
}: {
  tasks: NonNullable<HistoryExport["tasks"]>;
  pending: WorkflowDebug["pending_workflow_tasks"];
}) {
  const t = useTranslations("run.tasks");
  const time = useTimeFormat();
  const transport = new Map((pending ?? []).map((task) => [task.task_id, task.transport_state ?? null] as const));
  if (tasks.length === 0) return <Muted>{t("none")}</Muted>;
  return (
    <div className="overflow-x-auto">
      <table className="w-full text-sm" data-testid="tasks-table">
        <thead className="border-b border-line">
          <tr>
            <th className={TH}>{t("type")}</th>
            <th className={TH}>{t("status")}</th>
            <th className={TH}>{t("transport")}</th>
            <th className={TH}>{t("queue")}</th>
            <th className={TH}>{t("attempts")}</th>
            <th className={TH}>{t("available")}</th>
            <th className={TH}>{t("lease")}</th>
            <th className={TH}>{t("error")}</th>
          </tr>
        </thead>
        <tbody>
          {tasks.map((task) => {
            const state =
              typeof task.transport_state === "string" ? task.transport_state : (transport.get(task.id) ?? null);
            return (
              <tr key={task.id} className="border-b border-line last:border-0">
                <td className={TD}>
                  {task.type}
                  <div className="font-mono text-[10px] text-fg-muted">{task.id}</div>
                </td>
                <td className={TD}>
                  <StatusBadge status={task.status} />
                </td>
                <td className={TD}>{state ?? "–"}</td>
                <td className={TD}>{text(task.queue)}</td>
                <td className={TD}>
                  {t("attemptCount", { attempts: task.attempt_count ?? 0, repairs: task.repair_count ?? 0 })}
                </td>
                <td className={`${TD} whitespace-nowrap`}>{time.dateTime(task.available_at)}</td>
                <td className={`${TD} text-xs`}>
                  {task.lease_owner ? <span className="font-mono">{task.lease_owner}</span> : "–"}
                  {task.lease_expires_at ? (
                    <div className="text-fg-muted">{time.dateTime(task.lease_expires_at)}</div>
                  ) : null}
                </td>
                <td className={`${TD} max-w-xs text-xs break-words`}>
                  {text(task.last_dispatch_error ?? task.last_claim_error)}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

export function CommandsPanel({ commands }: { commands: NonNullable<HistoryExport["commands"]> }) {
  const t = useTranslations("run.commands");
  const time = useTimeFormat();
  if (commands.length === 0) return <Muted>{t("none")}</Muted>;
  return (
    <div className="overflow-x-auto">
      <table className="w-full text-sm" data-testid="commands-table">
        <thead className="border-b border-line">
          <tr>
            <th className={TH}>{t("sequence")}</th>
            <th className={TH}>{t("type")}</th>
            <th className={TH}>{t("status")}</th>
            <th className={TH}>{t("outcome")}</th>
            <th className={TH}>{t("source")}</th>
            <th className={TH}>{t("requestId")}</th>
            <th className={TH}>{t("accepted")}</th>
          </tr>
        </thead>
        <tbody>
          {commands.map((command) => (
            <tr key={command.id} className="border-b border-line last:border-0">
              <td className={`${TD} font-mono`}>{text(command.sequence)}</td>
              <td className={TD}>{command.type}</td>
              <td className={TD}>
                <StatusBadge status={command.status} />
              </td>
              <td className={TD}>{text(command.outcome ?? command.rejection_reason)}</td>
              <td className={TD}>{text(command.source)}</td>
              <td className={`${TD} font-mono text-xs`}>{text(command.request_id)}</td>
              <td className={`${TD} whitespace-nowrap`}>{time.dateTime(command.accepted_at ?? command.rejected_at)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** Continue-as-new chain (every run of the workflow) and parent/child links. */
export function RelationshipsPanel({
  namespace,
  workflowId,
  runId,
  runs,
  links,
}: {
  namespace: string;
  workflowId: string;
  runId: string;
  runs: readonly RunListItem[];
  links: HistoryExport["links"] | undefined;
}) {
  const t = useTranslations("run.relationships");
  const time = useTimeFormat();
  const parents = links?.parents ?? [];
  const children = links?.children ?? [];
  return (
    <div className="space-y-4" data-testid="relationships">
      <div>
        <h3 className="mb-1 text-xs font-semibold text-fg-muted uppercase">{t("runs")}</h3>
        {runs.length === 0 ? (
          <Muted>{t("noRuns")}</Muted>
        ) : (
          <ol className="space-y-1 text-sm">
            {[...runs]
              .sort((a, b) => a.run_number - b.run_number)
              .map((run) => (
                <li key={run.run_id} className="flex flex-wrap items-center gap-2">
                  <span className="w-10 font-mono text-fg-muted">#{run.run_number}</span>
                  {run.run_id === runId ? (
                    <span className="font-mono font-semibold">{run.run_id}</span>
                  ) : (
                    <Link
                      href={runHref(namespace, workflowId, run.run_id)}
                      className="font-mono text-accent hover:underline"
                    >
                      {run.run_id}
                    </Link>
                  )}
                  <StatusBadge status={run.status} />
                  <span className="text-xs text-fg-muted">{time.dateTime(run.started_at)}</span>
                  {run.run_id === runId ? <span className="text-xs text-fg-muted">{t("viewing")}</span> : null}
                </li>
              ))}
          </ol>
        )}
      </div>
      {[
        { title: t("parents"), items: parents, side: "parent" as const },
        { title: t("children"), items: children, side: "child" as const },
      ].map(({ title, items, side }) => (
        <div key={side}>
          <h3 className="mb-1 text-xs font-semibold text-fg-muted uppercase">{title}</h3>
          {items.length === 0 ? (
            <Muted>{t("none")}</Muted>
          ) : (
            <ul className="space-y-1 text-sm">
              {items.map((link, index) => {
                const id = side === "parent" ? link.parent_workflow_instance_id : link.child_workflow_instance_id;
                const linkedRun = side === "parent" ? link.parent_workflow_run_id : link.child_workflow_run_id;
                return (
                  <li key={link.id ?? index} className="flex flex-wrap items-center gap-2">
                    <span className="text-xs text-fg-muted">{text(link.type)}</span>
                    {id ? (
                      <Link
                        href={linkedRun ? runHref(namespace, id, linkedRun) : workflowHref(namespace, id)}
                        className="font-mono text-accent hover:underline"
                      >
                        {id}
                      </Link>
                    ) : (
                      "–"
                    )}
                    {link.workflow_type ? <span>{link.workflow_type}</span> : null}
                    {link.status ? <StatusBadge status={link.status} /> : null}
                  </li>
                );
              })}
            </ul>
          )}
        </div>
      ))}
    </div>
  );
}
