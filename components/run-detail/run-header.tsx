"use client";

import { memo } from "react";
import { ELEMENT_TIMING, elementTiming } from "@/components/ui/element-timing";
import { CLOSED_REASON_BADGES } from "@/lib/views/run-row";
import type { ClosedReasonBadge } from "@/lib/views/run-row";
import { ServerText } from "@/components/ui/server-text";
import { ID_HEADING } from "@/components/ui/id-heading";
import type { ReactNode } from "react";
import Link from "@/components/ui/link";
import { useTranslations } from "next-intl";
import type { RunDescription, RunListItem, WorkflowDebug } from "@/lib/dw/schemas-workflows";
import type { LivenessView } from "@/lib/views/liveness";
import { archiveState } from "@/lib/views/run-archive";
import type { DerivedWait } from "@/lib/views/waits";
import { waitDue } from "@/lib/views/waits-due";
import { runExportHref, runHref } from "@/lib/routes/route-for";
import { Pill, StatusBadge } from "@/components/ui/status-badge";
import { useTicker, useTimeFormat } from "@/components/hooks/use-time-format";
import { CopyButton } from "@/components/run-detail/copy-button";
import { prettyJson } from "@/components/run-detail/payload";
import { AttributeValues } from "@/components/search-attributes/attribute-values";
import { RunScheduleLink } from "@/components/schedules/run-schedule-link";
import { withBasePath } from "@/lib/http/base-path";

function Field({ label, children, testId }: { label: string; children: ReactNode; testId?: string }) {
  return (
    <div className="min-w-0">
      <dt className="text-xs text-fg-muted">{label}</dt>
      <dd className="mt-0.5 text-sm break-words" data-testid={testId}>
        {children}
      </dd>
    </div>
  );
}

function isEmptyMap(value: unknown): boolean {
  return value === null || value === undefined || (typeof value === "object" && Object.keys(value).length === 0);
}

function JsonBlock({ label, value, testId }: { label: string; value: unknown; testId: string }) {
  return (
    <div className="min-w-0">
      <h3 className="text-xs text-fg-muted">{label}</h3>
      <pre
        data-testid={testId}
        className="mt-1 max-h-32 overflow-auto rounded border border-line bg-panel-muted/50 p-2 font-mono text-xs whitespace-pre-wrap break-all"
      >
        {value === undefined ? "–" : prettyJson(value)}
      </pre>
    </div>
  );
}

/**
 * The history's event count from debug (`execution.last_event.sequence`: sequences are contiguous
 * from 1, docs/research/issue-14-real-server-facts.md §2). Size and budget pressure are in the export
 * only, which the "Download history export" button beside the title gets: nothing more is said here.
 */
function HistoryCount({ events }: { events: number | null }) {
  const t = useTranslations("run.header");
  if (events === null) return "–";
  return (
    <span className="block text-xs" data-testid="history-event-count">
      {t("historyEvents", { events })}
    </span>
  );
}

/**
 * When the run's wait is due, in the chosen time zone, and how late it is once past ("due 15:02:30 ·
 * overdue by 4m"): a stuck timer shows when it should have fired. Its own clock, so the memoised
 * header is not redrawn every tick; nothing when no deadline is recorded.
 */
function WaitDueLine({
  waitKind,
  waitDeadlineAt,
  waits,
}: {
  waitKind: string | null;
  waitDeadlineAt: string | null;
  waits: readonly DerivedWait[] | null;
}) {
  const t = useTranslations("run.header");
  const time = useTimeFormat();
  const now = useTicker(15_000);
  const due = waitDue({ waitKind, waitDeadlineAt, waits }, now);
  if (!due) return null;
  return (
    <span
      className={`block text-xs ${due.overdueMs !== null ? "font-medium text-bad" : "text-fg-muted"}`}
      data-testid="run-wait-due"
      data-overdue={due.overdueMs !== null ? "true" : "false"}
    >
      {due.overdueMs !== null
        ? t("waitOverdue", { time: time.dateTime(due.dueAt), late: time.duration(due.overdueMs) })
        : t("waitDue", { time: time.dateTime(due.dueAt) })}
    </span>
  );
}

const TONE_TO_PILL = {
  neutral: "neutral",
  info: "info",
  success: "success",
  warning: "warning",
  danger: "danger",
  dark: "danger",
} as const;

// Memoised: the run page re-renders as its run view streams in; the header changes only with its props.
export const RunHeader = memo(function RunHeader({
  namespace,
  describe,
  debug,
  eventCount,
  liveness,
  runs,
  waits = null,
}: {
  namespace: string;
  describe: RunDescription;
  /** Waits derived from the whole history (null until it is read): an open wait's deadline. */
  waits?: readonly DerivedWait[] | null;
  debug: WorkflowDebug | null;
  /** Events in the run: debug's last sequence, or the streamed views' count once read. */
  eventCount: number | null;
  liveness: LivenessView;
  runs: readonly RunListItem[];
}) {
  const t = useTranslations("run.header");
  // Liveness and task-problem labels are `views.*` ids from lib/views; the catalog translates them.
  const tv = useTranslations();
  const time = useTimeFormat();
  const next = debug?.execution.next_scheduled_event;
  const nextTask =
    next?.task_type || next?.task_id
      ? [next.task_type, next.task_status, next.task_id].filter(Boolean).join(" / ")
      : null;
  const nextTaskAt = next?.available_at ?? null;
  const durationMs = time.between(describe.started_at, describe.closed_at);
  const previousRun = runs.find((run) => run.run_number === describe.run_number - 1);
  const nextRun = runs.find((run) => run.run_number === describe.run_number + 1);
  // After Archive the header says so, from describe (its archived fields, else can_archive).
  const archived = archiveState(describe);

  return (
    <section aria-label={t("title")} className="rounded-lg border border-line bg-panel p-4" data-testid="run-header">
      <div className="flex flex-wrap items-center gap-2">
        <h1
          className={ID_HEADING}
          title={describe.workflow_id}
          data-testid="run-workflow-id"
          {...elementTiming(ELEMENT_TIMING.runHeader)}
        >
          {describe.workflow_id}
        </h1>
        <CopyButton value={describe.workflow_id} label={t("workflowId")} />
        <StatusBadge status={describe.status} />
        {describe.closed_reason && describe.closed_reason !== describe.status ? (
          <span data-testid="run-closed-reason" data-reason={describe.closed_reason}>
            {/* A code the console has no word for stays the server's code, never a blank. */}
            {(CLOSED_REASON_BADGES as readonly string[]).includes(describe.closed_reason) ? (
              <StatusBadge status={describe.closed_reason}>
                {tv(`runs.row.closedReason.${describe.closed_reason as ClosedReasonBadge}`)}
              </StatusBadge>
            ) : (
              <span className="text-sm text-fg-muted">{describe.closed_reason}</span>
            )}
          </span>
        ) : null}
        {archived ? (
          <span className="inline-flex flex-wrap items-center gap-1" data-testid="run-archived">
            <Pill tone="neutral">{t("archived")}</Pill>
            {archived.at || archived.reason ? (
              <span className="text-xs text-fg-muted" data-testid="run-archived-detail">
                {[archived.at ? time.dateTime(archived.at) : null, archived.reason].filter(Boolean).join(" · ")}
              </span>
            ) : null}
          </span>
        ) : null}
        {liveness.stuck ? (
          <Pill tone="danger" testId="stuck-badge">
            {t("stuck")}
          </Pill>
        ) : null}
        {liveness.taskProblem ? (
          <Pill tone={TONE_TO_PILL[liveness.taskProblem.tone]}>
            {tv(liveness.taskProblem.label.id, liveness.taskProblem.label.values)}
          </Pill>
        ) : null}
        <div className="ml-auto flex flex-wrap items-center gap-2 text-sm">
          {previousRun ? (
            <Link
              href={runHref(namespace, describe.workflow_id, previousRun.run_id)}
              className="text-accent hover:underline"
              data-testid="previous-run"
            >
              {t("previousRun", { number: previousRun.run_number })}
            </Link>
          ) : null}
          {nextRun ? (
            <Link
              href={runHref(namespace, describe.workflow_id, nextRun.run_id)}
              className="text-accent hover:underline"
              data-testid="next-run"
            >
              {t("nextRun", { number: nextRun.run_number })}
            </Link>
          ) : null}
          <a
            href={withBasePath(runExportHref(namespace, describe.workflow_id, describe.run_id))}
            download
            data-testid="download-export"
            className="rounded-md border border-line bg-panel-muted px-3 py-1.5 text-sm font-medium hover:bg-accent-soft"
          >
            {t("download")}
          </a>
        </div>
      </div>

      <dl className="mt-4 grid grid-cols-2 gap-x-6 gap-y-3 md:grid-cols-3 xl:grid-cols-5">
        <Field label={t("runId")}>
          <span className="font-mono text-xs" data-testid="run-id">
            {describe.run_id}
          </span>
          <CopyButton value={describe.run_id} label={t("runId")} />
        </Field>
        <Field label={t("type")}>{describe.workflow_type}</Field>
        <Field label={t("runNumber")} testId="run-number">
          {describe.run_count
            ? t("runOf", { number: describe.run_number, count: describe.run_count })
            : describe.run_number}
          {describe.is_current_run === false ? <span className="ml-1 text-xs text-warn">{t("historical")}</span> : null}
        </Field>
        <Field label={t("liveness")} testId="run-liveness">
          <Pill tone={TONE_TO_PILL[liveness.tone]}>{tv(liveness.label.id, liveness.label.values)}</Pill>
          {liveness.reason ? (
            <span className="mt-1 block text-xs text-fg-muted">
              {/* Server text: its ISO instants are shown in the chosen zone. */}
              <ServerText text={liveness.reason} />
            </span>
          ) : null}
        </Field>
        <Field label={t("wait")}>
          {describe.wait_kind || describe.wait_reason ? (
            <>
              {describe.wait_kind ? <span className="font-mono text-xs">{describe.wait_kind}</span> : null}
              {describe.wait_reason ? (
                <span className="block text-xs text-fg-muted">
                  <ServerText text={describe.wait_reason} />
                </span>
              ) : null}
            </>
          ) : (
            "–"
          )}
          {describe.is_terminal ? null : (
            <WaitDueLine
              waitKind={describe.wait_kind ?? null}
              waitDeadlineAt={debug?.execution.next_scheduled_event?.wait_deadline_at ?? null}
              waits={waits}
            />
          )}
        </Field>
        <Field label={t("nextTask")}>
          {nextTask ? <span className="font-mono text-xs break-all">{nextTask}</span> : "–"}
          {nextTaskAt ? <span className="block text-xs text-fg-muted">{time.dateTime(nextTaskAt)}</span> : null}
        </Field>
        <Field label={t("taskQueue")}>{describe.task_queue ?? "–"}</Field>
        <Field label={t("businessKey")}>{describe.business_key ?? "–"}</Field>
        <RunScheduleLink namespace={namespace} workflowId={describe.workflow_id} runId={describe.run_id} />
        <Field label={t("started")}>{time.dateTime(describe.started_at)}</Field>
        <Field label={t("closed")}>{time.dateTime(describe.closed_at)}</Field>
        <Field label={t("duration")}>{time.duration(durationMs)}</Field>
        <Field label={t("history")} testId="run-history-budget">
          <HistoryCount events={eventCount} />
        </Field>
        <Field label={t("deadlines")}>
          <span className="block text-xs">
            {t("executionDeadline")}: {time.dateTime(describe.execution_deadline_at)}
          </span>
          <span className="block text-xs">
            {t("runDeadline")}: {time.dateTime(describe.run_deadline_at)}
          </span>
        </Field>
      </dl>

      {/* Input, output, memo and search attributes share one row on a wide screen (the tabs stay in the first screen). */}
      <div className="mt-4 grid gap-3 md:grid-cols-[repeat(auto-fit,minmax(16rem,1fr))]">
        <JsonBlock label={t("input")} value={describe.input} testId="run-input" />
        <JsonBlock label={t("output")} value={describe.output} testId="run-output" />
        {!isEmptyMap(describe.memo) ? <JsonBlock label={t("memo")} value={describe.memo} testId="run-memo" /> : null}
        {!isEmptyMap(describe.search_attributes) ? (
          <AttributeValues namespace={namespace} values={describe.search_attributes} />
        ) : null}
      </div>
    </section>
  );
});
