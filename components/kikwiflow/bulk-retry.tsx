"use client";

import { useEffect, useRef, useState } from "react";
import Link from "@/components/ui/link";
import { useQueryClient } from "@tanstack/react-query";
import { useTranslations } from "next-intl";
import type { SendResult } from "@/lib/confirm/bulk";
import type { BulkSent } from "@/lib/confirm/bulk-runner";
import { BULK_TRACK_FOR_MS } from "@/lib/confirm/bulk-limits";
import { useBulkGroup } from "@/components/actions/use-bulk-group";
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
import {
  RETRY_BUCKETS,
  bulkFollow,
  bulkRetryOutcome,
  bulkRetryPlan,
  retryItems,
  retrySendResult,
} from "@/lib/kikwiflow/bulk-retry";
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
import { BulkOutcome, BulkPanel, BulkPlanSentence, BulkSend, toneClass } from "@/components/actions/bulk-panel";
import type { BulkTone } from "@/lib/views/bulk-panel";
import { shownBuckets } from "@/lib/views/bulk-panel";
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
  const { planned, capped } = useBulkGroup(all);
  const { view, execute } = useBulkRunner(RUNNER_SCOPE, planned, retryFlow);
  const [consent, setConsent] = useState(false);
  const fatal = group.fatal > 0;
  useEffect(() => {
    if (view.done) void queryClient.invalidateQueries({ queryKey: kikwiflowKey("attention") });
  }, [view.done, queryClient]);
  // Opened from a row further down: the panel sits above the table, so bring it into view.
  const panelRef = useRef<HTMLDivElement>(null);
  useEffect(() => panelRef.current?.scrollIntoView({ block: "nearest" }), []);
  return (
    <BulkPanel
      ref={panelRef}
      testId="kikwiflow-bulk-retry"
      place="group"
      view={view}
      words={t}
      title={t("title", { task: group.taskName ?? group.taskDefinitionId ?? "–", definition })}
      onClose={onClose}
      trackForMs={BULK_TRACK_FOR_MS}
      limits={{ rule: t("rule"), capped: capped && t("capped", capped) }}
      statusClassName="space-y-1"
      reading={(reads) => t("reading", reads)}
      plan={(plan, heading) => <RetryPlan plan={plan} heading={heading} executed={view.shown !== "planned"} />}
      progress={{ barLabel: t("progressLabel") }}
      outcome={(outcome, tracking) => <RetryOutcomeList outcome={outcome} tracking={tracking} />}
      controls={(plan) => (
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
            <BulkSend
              testId="kikwiflow-bulk-retry-execute"
              label={t("execute", { count: plan.counts.retry })}
              disabled={plan.counts.retry === 0 || disabledReason !== null || (fatal && !consent)}
              onSend={() => void execute()}
              refusal={disabledReason}
              refusalTestId="kikwiflow-bulk-retry-refused"
            />
          </div>
        </div>
      )}
    />
  );
}

const PLAN_WORDS = { retry: "planRetry", skip_not_open: "planNotOpen", skip_unreadable: "planUnreadable" } as const;

function RetryPlan({ plan, heading, executed }: { plan: BulkRetryPlan; heading: string; executed: boolean }) {
  const t = useTranslations("kikwiflow.bulkRetry");
  const { counts } = plan;
  return (
    <BulkPlanSentence
      data={{ "data-testid": "kikwiflow-bulk-retry-plan", "data-retry": counts.retry }}
      parts={[
        heading,
        ...shownBuckets(RETRY_BUCKETS, counts, "retry").map((bucket) =>
          t(PLAN_WORDS[bucket], { count: counts[bucket] }),
        ),
      ]}
      // Once sent, the outcome lists every instance; the plan's list would say it twice.
      list={
        executed
          ? null
          : {
              className: "max-h-40 overflow-y-auto text-xs",
              testId: "kikwiflow-bulk-retry-planned",
              items: plan.items
                .filter((item) => item.bucket === "retry")
                .map((item) => ({
                  key: item.incidentId,
                  className: "font-mono break-all",
                  content: item.processInstanceId,
                })),
            }
      }
    />
  );
}

const STATE_TONE: Readonly<Record<RetryRow["state"], BulkTone>> = {
  confirmed: "ok",
  moved_on: "ok",
  failed_again: "bad",
  unconfirmed: "warn",
  already_retried: "muted",
  error: "bad",
};

function RetryOutcomeList({ outcome, tracking }: { outcome: BulkRetryOutcome; tracking: string }) {
  const t = useTranslations("kikwiflow.bulkRetry");
  const time = useTimeFormat();
  const { counts } = outcome;
  return (
    <BulkOutcome
      data={{ "data-testid": "kikwiflow-bulk-retry-outcome", "data-settled": outcome.settled }}
      className="space-y-1"
      tally={t("tally", {
        confirmed: counts.confirmed,
        failed: counts.failed_again,
        moved: counts.moved_on,
        unconfirmed: counts.unconfirmed,
        already: counts.already_retried,
        errors: counts.error,
      })}
      tracking={tracking}
    >
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
            <span className={toneClass(STATE_TONE[row.state])}>
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
    </BulkOutcome>
  );
}
