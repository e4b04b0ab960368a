"use client";

import { useEffect, useMemo, useRef, useState } from "react";
import Link from "@/components/ui/link";
import { useQueryClient } from "@tanstack/react-query";
import { useTranslations } from "next-intl";
import type { SendResult } from "@/lib/confirm/bulk";
import type { BulkSent } from "@/lib/confirm/bulk-runner";
import { bulkView } from "@/lib/confirm/bulk-runner";
import { BULK_TRACK_FOR_MS, WALK_LIMITS, boundedMembers } from "@/lib/confirm/bulk-limits";
import type { AttentionGroup } from "@/lib/kikwiflow/attention";
import type {
  AcceptedRetry,
  BulkRetryOutcome,
  BulkRetryPlan,
  RetryFollow,
  RetryRead,
  RetryRow,
  RetryTarget,
} from "@/lib/kikwiflow/bulk-retry";
import { bulkFollow, bulkRetryOutcome, bulkRetryPlan, retryItems, retrySendResult } from "@/lib/kikwiflow/bulk-retry";
import {
  fetchKikwiflowIncidents,
  fetchKikwiflowSnapshot,
  KikwiflowApiError,
  kikwiflowKey,
  retryKikwiflowIncident,
} from "@/lib/queries/kikwiflow";
import { kikwiflowInstanceHref } from "@/lib/routes/route-for";
import type { BulkFlow } from "@/components/actions/use-bulk-runner";
import { useBulkRunner } from "@/components/actions/use-bulk-runner";
import { BulkPanelHeader, BulkProgress } from "@/components/actions/bulk-panel";
import { Button } from "@/components/ui/button";
import { useTimeFormat } from "@/components/hooks/use-time-format";
import { useActDisabledReason } from "@/components/kikwiflow/use-act-disabled-reason";

/** The route's accepted answer, kept to follow the instance by the single retry's rule. */
interface RetrySent extends BulkSent {
  answer: AcceptedRetry | null;
}

type RetryFlow = BulkFlow<
  RetryTarget,
  RetryRead,
  BulkRetryPlan,
  RetryTarget,
  void,
  RetrySent,
  RetryFollow,
  BulkRetryOutcome
>;

/** The runner names a namespace for its DW invalidation; Kikwiflow has none, so its own keys are refreshed here. */
const RUNNER_SCOPE = "kikwiflow";

async function sendRetry({ incidentId }: RetryTarget, signal: AbortSignal): Promise<RetrySent> {
  try {
    const answer = await retryKikwiflowIncident(incidentId, signal);
    if (answer.result === "accepted") return { result: retrySendResult({ ok: true, answer }), answer };
    return { result: retrySendResult({ ok: false, status: 409, reason: "conflict" }), answer: null };
  } catch (error) {
    const status = error instanceof KikwiflowApiError ? error.status : null;
    const reason = error instanceof KikwiflowApiError ? error.reason : "network";
    return { result: retrySendResult({ ok: false, status, reason }), answer: null };
  }
}

/** The instance's incidents and tasks after the retry; a 404 snapshot is an instance that finished. */
async function followOne({ processInstanceId }: RetryTarget, sent: RetrySent, signal: AbortSignal) {
  if (!sent.answer) return null;
  try {
    const [incidents, tasks] = await Promise.all([
      fetchKikwiflowIncidents(processInstanceId, signal),
      fetchKikwiflowSnapshot(processInstanceId, signal).then(
        (snapshot) => snapshot.executableTasks,
        (error: unknown) => {
          if (error instanceof KikwiflowApiError && error.status === 404) return "gone" as const;
          throw error;
        },
      ),
    ]);
    return bulkFollow(sent.answer, incidents, tasks);
  } catch {
    return null;
  }
}

const retryFlow: RetryFlow = {
  read: (target, signal) => fetchKikwiflowIncidents(target.processInstanceId, signal).catch(() => null),
  plan: (targets, reads) => bulkRetryPlan(targets, reads),
  sendTo: (plan) => retryItems(plan),
  send: (target, _input, signal) => sendRetry(target, signal),
  follow: followOne,
  outcome: (plan, sends: readonly SendResult[], follows) => bulkRetryOutcome(plan, sends, follows),
  settled: (outcome) => outcome.settled,
  trackForMs: BULK_TRACK_FOR_MS,
  touched: () => [],
};

/**
 * "Retry all" for a Kikwiflow attention group, in the stages of Durable Workflow's bulk repair (the
 * same runner): the dry run (each instance's incidents read afresh, nothing sent), the retries with
 * progress (each confirmed by the route from the engine), then each instance followed until it
 * failed again or moved on. A fatal group asks first: the engine fails it again unless the data is fixed.
 */
export function BulkRetry({
  group,
  definition,
  onClose,
}: {
  group: AttentionGroup;
  /** The group's definition as the table names it (`kiki-fatal v1`). */
  definition: string;
  onClose: () => void;
}) {
  const t = useTranslations("kikwiflow.bulkRetry");
  const queryClient = useQueryClient();
  const disabledReason = useActDisabledReason(t("needsOperator"));
  // Frozen when the panel opens: the scan refreshing underneath must not re-plan a retry in flight.
  const [all] = useState(() =>
    group.instances.map(({ processInstanceId, incidentId }) => ({ processInstanceId, incidentId })),
  );
  const { planned: targets, left } = useMemo(() => boundedMembers(all), [all]);
  const { stage, execute } = useBulkRunner(RUNNER_SCOPE, targets, retryFlow);
  const view = bulkView(stage);
  const [consent, setConsent] = useState(false);
  const fatal = group.fatal > 0;
  useEffect(() => {
    if (view.done) void queryClient.invalidateQueries({ queryKey: kikwiflowKey("attention") });
  }, [view.done, queryClient]);
  // Opened from a row further down: the panel sits above the table, so bring it into view.
  const panelRef = useRef<HTMLDivElement>(null);
  useEffect(() => panelRef.current?.scrollIntoView({ block: "nearest" }), []);
  const canSend = stage.kind === "planned" && stage.plan.counts.retry > 0 && disabledReason === null;
  return (
    <div
      ref={panelRef}
      data-testid="kikwiflow-bulk-retry"
      data-stage={view.shown}
      className="space-y-3 rounded-md border border-line bg-panel-muted p-3 text-sm"
    >
      <BulkPanelHeader
        heading="h4"
        title={t("title", { task: group.taskName ?? group.taskDefinitionId ?? "–", definition })}
        closeLabel={t("close")}
        onClose={onClose}
      />
      <p className="text-xs text-fg-muted">
        {t("rule")}{" "}
        {t("limits", {
          sends: WALK_LIMITS.bulkSendConcurrency,
          interval: WALK_LIMITS.trackIntervalSeconds,
          minutes: WALK_LIMITS.trackForMinutes,
        })}
        {left > 0 ? ` ${t("capped", { limit: WALK_LIMITS.bulkMaxRuns, total: all.length })}` : ""}
      </p>
      <div role="status" aria-live="polite" className="space-y-1">
        {view.reads && stage.kind === "planning" ? <p>{t("reading", view.reads)}</p> : null}
        {view.plan ? <RetryPlan plan={view.plan} executed={stage.kind !== "planned"} /> : null}
        {view.progress ? (
          <BulkProgress progress={view.progress} text={t("sending", view.progress)} label={t("progressLabel")} />
        ) : null}
        {view.outcome ? <RetryOutcomeList outcome={view.outcome} checks={view.checks} done={view.done} /> : null}
      </div>
      {stage.kind === "planned" ? (
        <div className="space-y-2">
          {fatal ? (
            <label className="flex items-start gap-2 rounded-md border border-warn/40 bg-warn/10 p-2">
              <input
                type="checkbox"
                data-testid="kikwiflow-bulk-retry-fatal-consent"
                checked={consent}
                onChange={(event) => setConsent(event.target.checked)}
                className="mt-0.5"
              />
              <span>{t("fatalConsent", { count: group.fatal })}</span>
            </label>
          ) : null}
          <div className="flex flex-wrap items-center gap-3">
            <Button
              variant="primary"
              data-testid="kikwiflow-bulk-retry-execute"
              disabled={!canSend || (fatal && !consent)}
              onClick={() => void execute()}
            >
              {t("execute", { count: stage.plan.counts.retry })}
            </Button>
            {disabledReason ? (
              <span className="text-xs text-fg-muted" data-testid="kikwiflow-bulk-retry-refused">
                {disabledReason}
              </span>
            ) : null}
          </div>
        </div>
      ) : null}
    </div>
  );
}

function RetryPlan({ plan, executed }: { plan: BulkRetryPlan; executed: boolean }) {
  const t = useTranslations("kikwiflow.bulkRetry");
  const { counts } = plan;
  return (
    <div>
      <p data-testid="kikwiflow-bulk-retry-plan" data-retry={counts.retry} className="font-medium">
        {executed ? t("planExecuted") : t("planHeading")} {t("planRetry", { count: counts.retry })}
        {counts.skip_not_open ? ` ${t("planNotOpen", { count: counts.skip_not_open })}` : ""}
        {counts.skip_unreadable ? ` ${t("planUnreadable", { count: counts.skip_unreadable })}` : ""}
      </p>
      {executed ? null : (
        <ul className="max-h-40 overflow-y-auto text-xs" data-testid="kikwiflow-bulk-retry-planned">
          {plan.items
            .filter((item) => item.bucket === "retry")
            .map((item) => (
              <li key={item.incidentId} className="font-mono break-all">
                {item.processInstanceId}
              </li>
            ))}
        </ul>
      )}
    </div>
  );
}

const STATE_TONE: Readonly<Record<RetryRow["state"], string>> = {
  confirmed: "text-ok",
  moved_on: "text-ok",
  failed_again: "text-bad",
  unconfirmed: "text-warn",
  already_retried: "text-fg-muted",
  error: "text-bad",
};

function RetryOutcomeList({ outcome, checks, done }: { outcome: BulkRetryOutcome; checks: number; done: boolean }) {
  const t = useTranslations("kikwiflow.bulkRetry");
  const time = useTimeFormat();
  const { counts } = outcome;
  return (
    <div data-testid="kikwiflow-bulk-retry-outcome" data-settled={outcome.settled} className="space-y-1">
      <p className="font-medium">
        {t("tally", {
          confirmed: counts.confirmed,
          failed: counts.failed_again,
          moved: counts.moved_on,
          unconfirmed: counts.unconfirmed,
          already: counts.already_retried,
          errors: counts.error,
        })}
      </p>
      <ul className="max-h-64 space-y-1 overflow-y-auto text-xs">
        {outcome.rows.map((row) => (
          <li
            key={row.incidentId}
            data-testid="kikwiflow-bulk-retry-row"
            data-state={row.state}
            className="break-words"
          >
            <Link href={kikwiflowInstanceHref(row.processInstanceId)} className="font-mono text-accent hover:underline">
              {row.processInstanceId}
            </Link>{" "}
            <span className={STATE_TONE[row.state]}>
              {row.state === "failed_again" && row.incident
                ? t("state.failed_again", {
                    time: time.dateTime(row.incident.createdAt),
                    error: row.incident.message ?? t("unknown"),
                    incident: row.incident.id,
                  })
                : t(`state.${row.state}`)}
            </span>
          </li>
        ))}
      </ul>
      <p className="text-xs text-fg-muted">{done ? t("trackingDone", { checks }) : t("tracking", { checks })}</p>
    </div>
  );
}
