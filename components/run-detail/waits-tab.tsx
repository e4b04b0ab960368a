"use client";

import { useMemo } from "react";
import type { ReactNode } from "react";
import Link from "@/components/ui/link";
import { useTranslations } from "next-intl";
import type { HistoryExport } from "@/lib/dw/schemas-export";
import type { RunListItem, WorkflowDebug } from "@/lib/dw/schemas-workflows";
import { runHref, workflowHref } from "@/lib/routes/route-for";
import { StatusBadge } from "@/components/ui/status-badge";
import { useTicker, useTimeFormat } from "@/components/hooks/use-time-format";
import { waitDue } from "@/lib/views/waits-due";
import { ShowMore, useShownRows } from "@/components/ui/show-more";
import { DataTable, dataColumns } from "@/components/ui/data-table";
import { Muted } from "@/components/ui/section";
import type { DerivedWait } from "@/lib/views/run-derivation";
import type { RunLinkGroupKind, RunLinkItem } from "@/lib/views/run-links";
import { runLinkGroups } from "@/lib/views/run-links";

function text(value: unknown): string {
  if (value === null || value === undefined || value === "") return "–";
  return typeof value === "string" || typeof value === "number" || typeof value === "boolean"
    ? String(value)
    : JSON.stringify(value);
}

/** A wait row: derived from history (`DerivedWait`) or the server's projection in the export. */
type Wait = Pick<DerivedWait, "id" | "kind" | "status"> &
  Partial<
    Pick<DerivedWait, "summary" | "summary_message" | "target_name" | "opened_at" | "deadline_at" | "resolved_at">
  >;
type Task = NonNullable<HistoryExport["tasks"]>[number];
type Command = NonNullable<HistoryExport["commands"]>[number];
const waitCol = dataColumns<Wait>();
const taskCol = dataColumns<Task>();
const commandCol = dataColumns<Command>();
const NOWRAP = { className: "whitespace-nowrap" };

const WAIT_KINDS = new Set(["activity", "timer", "signal", "condition", "update", "child"]);

/** A wait kind in words; a kind the console does not know stays the server's code. */
function WaitKind({ kind }: { kind: string }) {
  const t = useTranslations("run.waits.kinds");
  if (!WAIT_KINDS.has(kind)) return <span data-code="">{kind}</span>;
  return <>{t(kind as "activity")}</>;
}

/** A derived wait's summary in the chosen language; the export's waits carry the engine's English. */
function WaitSummaryText({ wait }: { wait: Wait }) {
  const t = useTranslations("run.waits.summaries");
  if (wait.summary_message) return <>{t(wait.summary_message.key, wait.summary_message.values)}</>;
  return <>{text(wait.summary ?? wait.target_name)}</>;
}

/** A wait's deadline in the chosen zone; an open wait past it says how late it is (its own clock). */
function WaitDeadline({ wait }: { wait: Wait }) {
  const t = useTranslations("run.waits");
  const time = useTimeFormat();
  const now = useTicker(15_000);
  const due = wait.status === "open" ? waitDue({ waits: [wait] }, now) : null;
  return (
    <>
      {time.dateTime(wait.deadline_at)}
      {due?.overdueMs ? (
        <span className="block text-xs font-medium text-bad" data-testid="wait-overdue">
          {t("overdue", { late: time.duration(due.overdueMs) })}
        </span>
      ) : null}
    </>
  );
}

function useWaitColumns() {
  const t = useTranslations("run.waits");
  const time = useTimeFormat();
  return useMemo(
    () =>
      waitCol.columns([
        waitCol.accessor("kind", { header: () => t("kind"), cell: (info) => <WaitKind kind={info.getValue()} /> }),
        waitCol.accessor("status", {
          header: () => t("status"),
          cell: (info) => <StatusBadge status={info.getValue()} />,
        }),
        waitCol.display({
          id: "summary",
          header: () => t("summary"),
          cell: ({ row }) => <WaitSummaryText wait={row.original} />,
        }),
        waitCol.accessor("opened_at", {
          header: () => t("opened"),
          cell: (info) => time.dateTime(info.getValue()),
          meta: NOWRAP,
        }),
        waitCol.accessor("deadline_at", {
          header: () => t("deadline"),
          cell: ({ row }) => <WaitDeadline wait={row.original} />,
          meta: NOWRAP,
        }),
        waitCol.accessor("resolved_at", {
          header: () => t("resolved"),
          cell: (info) => time.dateTime(info.getValue()),
          meta: NOWRAP,
        }),
      ]),
    [t, time],
  );
}

export function WaitsPanel({ waits, testId = "waits-table" }: { waits: readonly Wait[]; testId?: string }) {
  const t = useTranslations("run.waits");
  const columns = useWaitColumns();
  const { shown, more, hidden } = useShownRows(waits);
  if (waits.length === 0) return <Muted>{t("none")}</Muted>;
  return (
    <div>
      <DataTable columns={columns} data={shown} getRowId={(wait) => wait.id} testId={testId} />
      <ShowMore hidden={hidden} onMore={more} testId="waits-show-more" />
    </div>
  );
}

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
        taskCol.display({ id: "queue", header: () => t("queue"), cell: ({ row }) => text(row.original.queue) }),
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
          cell: ({ row }) => text(row.original.last_dispatch_error ?? row.original.last_claim_error),
          meta: { className: "max-w-xs text-xs break-words" },
        }),
      ]),
    [t, time, transport],
  );
}

/** Tasks with their transport state: the export row's, else the debug view of the same open task. */
export function TasksPanel({
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

function useCommandColumns() {
  const t = useTranslations("run.commands");
  const time = useTimeFormat();
  return useMemo(
    () =>
      commandCol.columns([
        commandCol.display({
          id: "sequence",
          header: () => t("sequence"),
          cell: ({ row }) => text(row.original.sequence),
          meta: { className: "font-mono" },
        }),
        commandCol.accessor("type", { header: () => t("type") }),
        commandCol.accessor("status", {
          header: () => t("status"),
          cell: (info) => <StatusBadge status={info.getValue()} />,
        }),
        commandCol.display({
          id: "outcome",
          header: () => t("outcome"),
          // The server's outcome code (`terminated`, `signal_received`, …), shown as it names it.
          cell: ({ row }) => <span data-code="">{text(row.original.outcome ?? row.original.rejection_reason)}</span>,
        }),
        commandCol.display({ id: "source", header: () => t("source"), cell: ({ row }) => text(row.original.source) }),
        commandCol.display({
          id: "requestId",
          header: () => t("requestId"),
          cell: ({ row }) => text(row.original.request_id),
          meta: { className: "font-mono text-xs" },
        }),
        commandCol.display({
          id: "accepted",
          header: () => t("accepted"),
          cell: ({ row }) => time.dateTime(row.original.accepted_at ?? row.original.rejected_at),
          meta: NOWRAP,
        }),
      ]),
    [t, time],
  );
}

export function CommandsPanel({ commands }: { commands: readonly Command[] }) {
  const t = useTranslations("run.commands");
  const columns = useCommandColumns();
  return (
    <DataTable
      columns={columns}
      data={commands}
      getRowId={(command) => command.id}
      testId="commands-table"
      empty={<Muted>{t("none")}</Muted>}
    />
  );
}

/** Continue-as-new chain (every run of the workflow) and the links: continued from/as, parent and children. */
export function RelationshipsPanel({
  namespace,
  workflowId,
  runId,
  runs,
  links,
  linksPending,
}: {
  namespace: string;
  workflowId: string;
  runId: string;
  runs: readonly RunListItem[];
  /** From the export (read lazily); undefined while it is read, and the link lists say so. */
  links: HistoryExport["links"] | undefined;
  /** Shown instead of the link lists until they are read. */
  linksPending?: ReactNode;
}) {
  const t = useTranslations("run.relationships");
  const time = useTimeFormat();
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
      {linksPending ??
        runLinkGroups(links ?? {}).map(({ kind, items }) => (
          <LinkGroup key={kind} kind={kind} items={items} namespace={namespace} />
        ))}
    </div>
  );
}

/** One group of linked runs (continued from, parent, continued as, children), each a link to its run. */
function LinkGroup({ kind, items, namespace }: { kind: RunLinkGroupKind; items: RunLinkItem[]; namespace: string }) {
  const t = useTranslations("run.relationships");
  return (
    <div data-testid={`link-${kind}`}>
      <h3 className="mb-1 text-xs font-semibold text-fg-muted uppercase">{t(`groups.${kind}`)}</h3>
      {items.length === 0 ? (
        <Muted>{t("none")}</Muted>
      ) : (
        <ul className="space-y-1 text-sm">
          {items.map((link) => (
            <li key={link.key} className="flex flex-wrap items-center gap-2">
              {link.workflowId ? (
                <Link
                  href={
                    link.runId
                      ? runHref(namespace, link.workflowId, link.runId)
                      : workflowHref(namespace, link.workflowId)
                  }
                  className="font-mono text-accent hover:underline"
                >
                  {link.runId && (kind === "continuedFrom" || kind === "continuedAs") ? link.runId : link.workflowId}
                </Link>
              ) : (
                "–"
              )}
              {link.workflowType ? <span>{link.workflowType}</span> : null}
              {link.status ? <StatusBadge status={link.status} /> : null}
              {/* A link kind the console has no words for stays the server's code. */}
              {link.unknownType ? (
                <span className="text-xs text-fg-muted" data-code="">
                  {link.unknownType}
                </span>
              ) : null}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
