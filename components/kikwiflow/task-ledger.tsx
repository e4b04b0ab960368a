"use client";

import { useTranslations } from "next-intl";
import type { ExecutableTask, RetryPolicy } from "@/lib/kikwiflow/schemas";
import { retryForecast } from "@/lib/kikwiflow/retry-policy";
import { taskBudget } from "@/lib/kikwiflow/task-budget";
import { useTimeFormat } from "@/components/hooks/use-time-format";
import { Pill, StatusBadge } from "@/components/ui/status-badge";
import { Muted, Section } from "@/components/ui/section";
import { statusTone } from "@/components/kikwiflow/status-tone";

/**
 * The policy in the words of Durable Workflow's activity card: executions allowed and the backoff
 * list. Shared with the definition screen, which shows it per task node.
 */
export function RetryPolicySummary({ policy }: { policy: RetryPolicy | null | undefined }) {
  const t = useTranslations("kikwiflow.tasks");
  if (!policy) return <span data-testid="kikwiflow-task-policy">{t("noPolicy")}</span>;
  const forecast = retryForecast(policy);
  return (
    <span data-testid="kikwiflow-task-policy">
      {t("policy", { strategy: policy.strategy ?? "–", max: forecast.maxAttempts })}
      {" · "}
      <span data-testid="kikwiflow-task-backoff">
        {!forecast.readable
          ? t("unreadable")
          : forecast.backoffSeconds.length > 0
            ? t("backoffPolicy", { list: forecast.backoffSeconds.join(", ") })
            : t("noBackoff")}
      </span>
      {forecast.readable ? (
        // The seed guide's example lists one delay per maxRetries; DefaultRetryPolicyEvaluator@3b62f35 stops at retries − 1 = 0.
        <span className="block" data-testid="kikwiflow-task-policy-why">
          {t("policyCountsExecutions", { max: forecast.maxAttempts, delays: forecast.backoffSeconds.length })}
        </span>
      ) : null}
    </span>
  );
}

/** What the coming failures will do: the delays the engine will apply, or the incident at once. */
function ComingDelays({ task }: { task: ExecutableTask }) {
  const t = useTranslations("kikwiflow.tasks");
  const delays = taskBudget(task).comingDelaysSeconds;
  if (delays === null) return null;
  const list = delays.join(", ");
  const text =
    task.status === "ERROR"
      ? delays.length > 0
        ? t("delaysAfterRetry", { list })
        : t("incidentAfterRetry")
      : delays.length > 0
        ? t("comingDelays", { list })
        : t("nextFailureOpensIncident");
  return (
    <span className="text-xs text-fg-muted" data-testid="kikwiflow-task-coming">
      {text}
    </span>
  );
}

function TaskCard({ task }: { task: ExecutableTask }) {
  const t = useTranslations("kikwiflow.tasks");
  const time = useTimeFormat();
  const budget = taskBudget(task);
  return (
    <article
      className="rounded-md border border-line"
      data-testid="kikwiflow-task"
      data-task-definition={task.taskDefinitionId ?? ""}
    >
      <header className="flex flex-wrap items-center gap-2 border-b border-line bg-panel-muted/60 px-3 py-2 text-sm">
        <span className="font-semibold">{task.taskDefinitionId ?? task.name ?? "–"}</span>
        <StatusBadge status={statusTone(task.status)}>
          <span data-testid="kikwiflow-task-status">{task.status}</span>
        </StatusBadge>
        <span className="text-xs text-fg-muted" data-testid="kikwiflow-task-executions">
          {t("executionsSoFar", { used: budget.executions })}
        </span>
        <span className="text-xs text-fg-muted" data-testid="kikwiflow-task-retries">
          {t("retriesLeft", { count: budget.retries })}
        </span>
        {budget.resetByRetry && budget.maxExecutions !== null ? (
          <span className="text-xs text-fg-muted" data-testid="kikwiflow-task-reset">
            {t("resetByRetry", { max: budget.maxExecutions })}
          </span>
        ) : null}
        <span className="text-xs text-fg-muted">
          <RetryPolicySummary policy={task.retryPolicy} />
        </span>
        <ComingDelays task={task} />
        {task.dueDate && task.status === "PENDING" ? (
          <Pill tone="info">{t("nextDue", { time: time.dateTime(task.dueDate) })}</Pill>
        ) : null}
        <span className="ml-auto font-mono text-[11px] text-fg-muted">{task.id}</span>
      </header>
      <div className="px-3 py-2 text-xs">
        <span className="font-semibold text-fg-muted">{t("lastError")}: </span>
        {task.error ? (
          <span className="break-words whitespace-pre-wrap" data-testid="kikwiflow-task-error">
            {task.error}
          </span>
        ) : (
          <span className="text-fg-muted">{t("noError")}</span>
        )}
      </div>
    </article>
  );
}

/** The attempt ledger of a Kikwiflow instance: one card per executable task, as the activities ledger. */
export function TaskLedger({ tasks }: { tasks: readonly ExecutableTask[] }) {
  const t = useTranslations("kikwiflow.tasks");
  return (
    <Section title={t("title")} testId="kikwiflow-tasks">
      {tasks.length === 0 ? (
        <Muted>{t("none")}</Muted>
      ) : (
        <div className="space-y-3">
          {tasks.map((task) => (
            <TaskCard key={task.id} task={task} />
          ))}
        </div>
      )}
    </Section>
  );
}
