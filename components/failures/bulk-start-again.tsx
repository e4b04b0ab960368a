"use client";

import { useMemo } from "react";
import Link from "@/components/ui/link";
import { useTranslations } from "next-intl";
import type { RunRef } from "@/lib/views/failure-groups";
import type { BulkOutcome, FollowUp } from "@/lib/confirm/bulk";
import { bulkOutcome } from "@/lib/confirm/bulk";
import type { BulkSent } from "@/lib/confirm/bulk-runner";
import { bulkView } from "@/lib/confirm/bulk-runner";
import type { PlannedStart, StartAgainPlan } from "@/lib/confirm/bulk-start-again";
import { startAgainPlan } from "@/lib/confirm/bulk-start-again";
import { BULK_TRACK_FOR_MS, WALK_LIMITS, boundedMembers } from "@/lib/confirm/bulk-limits";
import { browserDwClientFor } from "@/lib/dw/browser-client";
import { newRequestId, sendRunAction } from "@/components/actions/send-action";
import type { BulkFlow } from "@/components/actions/use-bulk-runner";
import { toSendResult, useBulkRunner } from "@/components/actions/use-bulk-runner";
import { followUp } from "@/components/attention/bulk-repair";
import { runHref } from "@/lib/routes/route-for";
import { Button } from "@/components/ui/button";
import { BulkPanelHeader, BulkProgress } from "@/components/actions/bulk-panel";

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

/**
 * "Start again" for a failure group, in the three stages of bulk repair: the dry-run plan (new ids,
 * nothing sent), the starts with progress, then what the new runs went on to do, read back from the
 * server until each closed or tracking gave up.
 */
export function BulkStartAgain({
  namespace,
  members: allMembers,
  canAct,
  disabledReason,
  onClose,
}: {
  namespace: string;
  members: readonly RunRef[];
  canAct: boolean;
  disabledReason: string | null;
  onClose: () => void;
}) {
  const t = useTranslations("failures.bulk");
  const { planned: members, left } = useMemo(() => boundedMembers(allMembers), [allMembers]);
  const flow = useMemo(() => startFlow(namespace), [namespace]);
  const { stage, execute } = useBulkRunner(namespace, members, flow);
  const view = bulkView(stage);
  const plan = view.plan;
  return (
    <div
      data-testid="bulk-start-again"
      data-stage={view.shown}
      className="mt-3 space-y-3 rounded-md border border-line bg-panel-muted p-3 text-sm"
    >
      <BulkPanelHeader heading="h4" title={t("title")} closeLabel={t("close")} onClose={onClose} />
      <p className="text-xs text-fg-muted">
        {t("rule")}{" "}
        {t("limits", {
          sends: WALK_LIMITS.bulkSendConcurrency,
          interval: WALK_LIMITS.trackIntervalSeconds,
          minutes: WALK_LIMITS.trackForMinutes,
        })}
        {left > 0 ? ` ${t("capped", { limit: WALK_LIMITS.bulkMaxRuns, total: allMembers.length })}` : ""}
      </p>
      <div role="status" aria-live="polite" className="space-y-1">
        {plan ? <StartPlan plan={plan} executed={stage.kind !== "planned"} /> : null}
        {view.progress ? (
          <BulkProgress progress={view.progress} text={t("sending", view.progress)} label={t("progressLabel")} />
        ) : null}
        {view.outcome ? (
          <StartOutcome
            namespace={namespace}
            outcome={view.outcome}
            started={stage.kind === "done" || stage.kind === "tracking" ? startedRuns(stage.results) : []}
            checks={view.checks}
            done={view.done}
          />
        ) : null}
      </div>
      {stage.kind === "planned" ? (
        <div className="flex items-center gap-3">
          <Button
            variant="primary"
            data-testid="bulk-execute"
            disabled={!canAct || stage.plan.counts.start === 0}
            onClick={() => void execute()}
          >
            {t("execute", { count: stage.plan.counts.start })}
          </Button>
          {!canAct && disabledReason ? <span className="text-xs text-fg-muted">{disabledReason}</span> : null}
        </div>
      ) : null}
    </div>
  );
}

function StartPlan({ plan, executed }: { plan: StartAgainPlan; executed: boolean }) {
  const t = useTranslations("failures.bulk");
  const samples = plan.runs.filter((run) => run.bucket === "start").slice(0, SAMPLES);
  return (
    <>
      <p data-testid="bulk-plan" data-start={plan.counts.start} className="font-medium">
        {executed ? t("planExecuted") : t("planHeading")} {t("planStart", { count: plan.counts.start })}
        {plan.counts.skip_same_workflow ? ` ${t("planSkip", { count: plan.counts.skip_same_workflow })}` : ""}
      </p>
      <ul className="text-xs text-fg-muted">
        {samples.map((run) => (
          <li key={run.runId} className="break-all">
            <span className="font-mono">{run.workflowId}</span> → <span className="font-mono">{run.newWorkflowId}</span>
          </li>
        ))}
      </ul>
    </>
  );
}

function StartOutcome({
  namespace,
  outcome,
  started,
  checks,
  done,
}: {
  namespace: string;
  outcome: BulkOutcome;
  started: readonly RunRef[];
  checks: number;
  done: boolean;
}) {
  const t = useTranslations("failures.bulk");
  const categories = Object.entries(outcome.failedByCategory);
  return (
    <div
      data-testid="bulk-outcome"
      data-settled={outcome.settled}
      data-accepted={outcome.accepted}
      data-completed={outcome.completed}
      data-failed={outcome.failedAgain}
      className="space-y-1"
    >
      <p className="font-medium">{t("started", { accepted: outcome.accepted, sent: outcome.sent })}</p>
      {outcome.rejected || outcome.errors ? (
        <p className="text-bad">{t("notStarted", { rejected: outcome.rejected, errors: outcome.errors })}</p>
      ) : null}
      <p className={outcome.failedAgain ? "text-bad" : outcome.settled ? "text-ok" : undefined}>
        {t("afterwards", {
          completed: outcome.completed,
          failed: outcome.failedAgain,
          open: outcome.stillOpen + outcome.stillStuck,
          other: outcome.otherClosed,
        })}
      </p>
      {categories.length ? (
        <p className="text-bad">
          {t("failedBy")} {categories.map(([category, count]) => `${category} × ${count}`).join(", ")}
        </p>
      ) : null}
      <ul className="text-xs">
        {started.slice(0, SAMPLES).map((run) => (
          <li key={run.runId}>
            <Link
              href={runHref(namespace, run.workflowId, run.runId)}
              className="font-mono text-accent hover:underline"
            >
              {run.workflowId}
            </Link>
          </li>
        ))}
        {started.length > SAMPLES ? (
          <li className="text-fg-muted">{t("moreStarted", { count: started.length - SAMPLES })}</li>
        ) : null}
      </ul>
      <p className="text-xs text-fg-muted">{done ? t("trackingDone", { checks }) : t("tracking", { checks })}</p>
    </div>
  );
}
