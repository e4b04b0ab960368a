"use client";

import { useMemo } from "react";
import { useTranslations } from "next-intl";
import type { RunRef } from "@/lib/views/failure-groups";
import type { BulkOutcome, FollowUp } from "@/lib/confirm/bulk";
import { bulkOutcome } from "@/lib/confirm/bulk";
import type { BulkSent } from "@/lib/confirm/bulk-runner";
import type { PlannedStart, StartAgainBucket, StartAgainPlan } from "@/lib/confirm/bulk-start-again";
import { startAgainPlan } from "@/lib/confirm/bulk-start-again";
import { BULK_TRACK_FOR_MS } from "@/lib/confirm/bulk-limits";
import { useBulkGroup } from "@/components/actions/use-bulk-group";
import { browserDwClientFor } from "@/lib/dw/browser-client";
import { newRequestId, sendRunAction } from "@/components/actions/send-action";
import type { BulkFlow } from "@/components/actions/use-bulk-runner";
import { toSendResult, useBulkRunner } from "@/components/actions/use-bulk-runner";
import { followUp } from "@/components/attention/bulk-repair";
import {
  BulkFailedBy,
  BulkOutcome as BulkOutcomeLines,
  BulkPanel,
  BulkPlanSentence,
  BulkRunLink,
  BulkGroupSend,
  toneClass,
} from "@/components/actions/bulk-panel";
import type { GroupBulkProps } from "@/components/actions/bulk-panel";
import { afterTone, categoryList, firstInBucket, firstOf, refusals, shownBuckets } from "@/lib/views/bulk-panel";

/** A start's result and the new run, as the server named it in its answer. */
interface StartSent extends BulkSent {
  started: RunRef | null;
}

type StartFlow = BulkFlow<RunRef, never, StartAgainPlan, PlannedStart, void, StartSent, FollowUp, BulkOutcome>;

/** No dry-run reads (the plan is new ids); what is tracked is the new runs, not the old ones. */
function startFlow(namespace: string): StartFlow {
  const client = browserDwClientFor(namespace);
  return {
    plan: (members) => startAgainPlan(members, Date.now()),
    sendTo: (plan) => plan.runs.filter((run) => run.bucket === "start"),
    send: async ({ workflowId, runId, newWorkflowId }, _input, signal) => {
      const request = { action: "startAgain" as const, workflowId, runId, requestId: newRequestId() };
      const sent = await sendRunAction(namespace, { ...request, newWorkflowId: newWorkflowId ?? "" }, signal);
      const started =
        sent.ok && sent.answer.result === "accepted" && sent.answer.runId
          ? { workflowId: sent.answer.workflowId, runId: sent.answer.runId }
          : null;
      return { result: toSendResult(sent), started };
    },
    follow: (_run, sent, signal) => (sent.started ? followUp(client, sent.started, signal) : Promise.resolve(null)),
    outcome: (_plan, sends, follows) => bulkOutcome(sends, follows),
    settled: (outcome) => outcome.settled,
    trackForMs: BULK_TRACK_FOR_MS,
    touched: (_runs, results) => startedRuns(results),
  };
}

function startedRuns(results: readonly (StartSent | null)[]): RunRef[] {
  return results.flatMap((sent) => (sent?.started ? [sent.started] : []));
}

const SAMPLES = 3;
const START_BUCKETS: readonly StartAgainBucket[] = ["start", "skip_same_workflow"];

/**
 * "Start again" for a failure group, in the three stages of bulk repair: the dry-run plan (new ids,
 * nothing sent), the starts with progress, then what the new runs went on to do, read back from the
 * server until each closed or tracking gave up.
 */
export function BulkStartAgain({ namespace, members, canAct, disabledReason, onClose }: GroupBulkProps) {
  const t = useTranslations("failures.bulk");
  const { planned, capped } = useBulkGroup(members);
  const flow = useMemo(() => startFlow(namespace), [namespace]);
  const { stage, view, execute } = useBulkRunner(namespace, planned, flow);
  const started = stage.kind === "done" || stage.kind === "tracking" ? startedRuns(stage.results) : [];
  return (
    <BulkPanel
      testId="bulk-start-again"
      place="group"
      className="mt-3"
      view={view}
      words={t}
      title={t("title")}
      onClose={onClose}
      trackForMs={BULK_TRACK_FOR_MS}
      limits={{ rule: t("rule"), capped: capped && t("capped", capped) }}
      statusClassName="space-y-1"
      plan={(plan, heading) => <StartPlan plan={plan} heading={heading} />}
      progress={{ barLabel: t("progressLabel") }}
      outcome={(outcome, tracking) => (
        <StartOutcome namespace={namespace} outcome={outcome} started={started} tracking={tracking} />
      )}
      controls={(plan) => (
        <BulkGroupSend
          label={t("execute", { count: plan.counts.start })}
          count={plan.counts.start}
          canAct={canAct}
          disabledReason={disabledReason}
          onSend={() => void execute()}
        />
      )}
    />
  );
}

function StartPlan({ plan, heading }: { plan: StartAgainPlan; heading: string }) {
  const t = useTranslations("failures.bulk");
  const words = { start: "planStart", skip_same_workflow: "planSkip" } as const;
  return (
    <BulkPlanSentence
      className="space-y-1"
      data={{ "data-testid": "bulk-plan", "data-start": plan.counts.start }}
      parts={[
        heading,
        ...shownBuckets(START_BUCKETS, plan.counts, "start").map((bucket) =>
          t(words[bucket], { count: plan.counts[bucket] }),
        ),
      ]}
      list={{
        className: "text-xs text-fg-muted",
        items: firstInBucket(plan.runs, "start", SAMPLES).map((run) => ({
          key: run.runId,
          className: "break-all",
          content: (
            <>
              <span className="font-mono">{run.workflowId}</span> →{" "}
              <span className="font-mono">{run.newWorkflowId}</span>
            </>
          ),
        })),
      }}
    />
  );
}

function StartOutcome({
  namespace,
  outcome,
  started,
  tracking,
}: {
  namespace: string;
  outcome: BulkOutcome;
  started: readonly RunRef[];
  tracking: string;
}) {
  const t = useTranslations("failures.bulk");
  const refused = refusals(outcome);
  const named = firstOf(started, SAMPLES);
  return (
    <BulkOutcomeLines
      data={{
        "data-testid": "bulk-outcome",
        "data-settled": outcome.settled,
        "data-accepted": outcome.accepted,
        "data-completed": outcome.completed,
        "data-failed": outcome.failedAgain,
      }}
      className="space-y-1"
      tally={t("started", { accepted: outcome.accepted, sent: outcome.sent })}
      refused={refused && t("notStarted", refused)}
      tracking={tracking}
    >
      <p className={toneClass(afterTone(outcome, outcome.failedAgain > 0))}>
        {t("afterwards", {
          completed: outcome.completed,
          failed: outcome.failedAgain,
          open: outcome.stillOpen + outcome.stillStuck,
          other: outcome.otherClosed,
        })}
      </p>
      <BulkFailedBy label={t("failedBy")} categories={categoryList(outcome.failedByCategory)} />
      <ul className="text-xs">
        {named.shown.map((run) => (
          <li key={run.runId}>
            <BulkRunLink namespace={namespace} run={run} />
          </li>
        ))}
        {named.more > 0 ? <li className="text-fg-muted">{t("moreStarted", { count: named.more })}</li> : null}
      </ul>
    </BulkOutcomeLines>
  );
}
