"use client";

import { useMemo } from "react";
import { useTranslations } from "next-intl";
import type { HistoryExport } from "@/lib/dw/schemas-export";
import type { WorkflowDebug } from "@/lib/dw/schemas-workflows";
import { useTimeFormat } from "@/components/hooks/use-time-format";
import { DataTable, dataColumns } from "@/components/ui/data-table";
import { Muted } from "@/components/ui/section";
import { StatusBadge } from "@/components/ui/status-badge";
import { ExportExtras, Heading, NOWRAP, cellText, exportTasks } from "@/components/run-detail/export-extras";
import type { RunTabData, RunTabProps } from "@/components/run-detail/run-tab-registry";

type Task = NonNullable<HistoryExport["tasks"]>[number];
const taskCol = dataColumns<Task>();

function useTaskColumns(transport: ReadonlyMap<string, string | null>) {
  const t = useTranslations("run.tasks");
  const time = useTimeFormat();
  return useMemo(
    () =>
      taskCol.columns([
        taskCol.accessor("type", {
          header: () => t("type"),
          cell: ({ row }) => (
            <>
              {row.original.type}
              <div className="font-mono text-[10px] text-fg-muted">{row.original.id}</div>
            </>
          ),
        }),
        taskCol.accessor("status", {
          header: () => t("status"),
          cell: (info) => <StatusBadge status={info.getValue()} />,
        }),
        taskCol.display({
          id: "transport",
          header: () => t("transport"),
          cell: ({ row }) =>
            (typeof row.original.transport_state === "string"
              ? row.original.transport_state
              : transport.get(row.original.id)) ?? "–",
        }),
        taskCol.display({ id: "queue", header: () => t("queue"), cell: ({ row }) => cellText(row.original.queue) }),
        taskCol.display({
          id: "attempts",
          header: () => t("attempts"),
          cell: ({ row }) =>
            t("attemptCount", { attempts: row.original.attempt_count ?? 0, repairs: row.original.repair_count ?? 0 }),
        }),
        taskCol.accessor("available_at", {
          header: () => t("available"),
          cell: (info) => time.dateTime(info.getValue()),
          meta: NOWRAP,
        }),
        taskCol.display({
          id: "lease",
          header: () => t("lease"),
          cell: ({ row }) => (
            <>
              {row.original.lease_owner ? <span className="font-mono">{row.original.lease_owner}</span> : "–"}
              {row.original.lease_expires_at ? (
                <div className="text-fg-muted">{time.dateTime(row.original.lease_expires_at)}</div>
              ) : null}
            </>
          ),
          meta: { className: "text-xs" },
        }),
        taskCol.display({
          id: "error",
          header: () => t("error"),
          cell: ({ row }) => cellText(row.original.last_dispatch_error ?? row.original.last_claim_error),
          meta: { className: "max-w-xs text-xs break-words" },
        }),
      ]),
    [t, time, transport],
  );
}

/** Tasks with their transport state: the export row's, else the debug view of the same open task. */
export function TasksTable({
  tasks,
  pending,
  testId = "tasks-table",
}: {
  tasks: readonly Task[];
  pending: WorkflowDebug["pending_workflow_tasks"];
  testId?: string;
}) {
  const t = useTranslations("run.tasks");
  const transport = useMemo(
    () => new Map((pending ?? []).map((task) => [task.task_id, task.transport_state ?? null] as const)),
    [pending],
  );
  const columns = useTaskColumns(transport);
  return (
    <DataTable
      columns={columns}
      data={tasks}
      getRowId={(task) => task.id}
      testId={testId}
      empty={<Muted>{t("none")}</Muted>}
    />
  );
}

type PendingTask = NonNullable<WorkflowDebug["pending_workflow_tasks"]>[number];

/** Debug's open workflow tasks (at most 25) in the export's task shape, shown before any export read. */
export function pendingAsTasks(pending: readonly PendingTask[] | undefined): Task[] {
  return (pending ?? []).map((task) => ({
    id: task.task_id,
    type: task.task_type ?? "workflow",
    status: task.status ?? "pending",
    transport_state: task.transport_state ?? null,
    queue: task.queue ?? null,
    attempt_count: task.attempt_count ?? 0,
    repair_count: task.repair_count ?? 0,
    available_at: task.available_at ?? null,
    lease_owner: task.lease_owner ?? null,
    lease_expires_at: task.lease_expires_at ?? null,
    last_dispatch_error: task.last_error ?? null,
  })) as unknown as Task[];
}

/** Debug's open tasks at once; every task of the run from the export. */
export function TasksTab({ pending, ...run }: RunTabProps & Pick<RunTabData, "pending">) {
  const t = useTranslations("run.tasks");
  const tf = useTranslations("run.extrasFields");
  return (
    <div className="space-y-4">
      <div>
        <Heading>{t("pendingTitle")}</Heading>
        <TasksTable tasks={pendingAsTasks(pending)} pending={pending} testId="pending-tasks-table" />
      </div>
      <div>
        <Heading>{t("allTitle")}</Heading>
        <ExportExtras {...run} fields={tf("tasks")}>
          {(extras) => <TasksTable tasks={exportTasks(extras)} pending={pending} />}
        </ExportExtras>
      </div>
    </div>
  );
}
