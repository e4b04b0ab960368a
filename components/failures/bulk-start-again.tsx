"use client";

import { useEffect, useMemo, useRef, useState } from "react";
import Link from "next/link";
import { useTranslations } from "next-intl";
import { useQueryClient } from "@tanstack/react-query";
import type { RunRef } from "@/lib/views/failure-groups";
import type { BulkOutcome, SendResult } from "@/lib/confirm/bulk";
import { bulkOutcome, mapBounded } from "@/lib/confirm/bulk";
import type { StartAgainPlan } from "@/lib/confirm/bulk-start-again";
import { startAgainPlan } from "@/lib/confirm/bulk-start-again";
import {
  BULK_READ_CONCURRENCY,
  BULK_SEND_CONCURRENCY,
  BULK_TRACK_FOR_MS,
  BULK_TRACK_INTERVAL_MS,
  WALK_LIMITS,
  boundedMembers,
} from "@/lib/confirm/bulk-limits";
import { browserDwClientFor } from "@/lib/dw/browser-client";
import { invalidateAfterBulkRepair } from "@/lib/queries/invalidate";
import { newRequestId, sendRunAction } from "@/components/actions/send-action";
import { followUp } from "@/components/attention/bulk-repair";
import { runHref } from "@/lib/routes/route-for";
import { Button } from "@/components/ui/button";

type Stage =
  | { kind: "planned"; plan: StartAgainPlan }
  | { kind: "sending"; plan: StartAgainPlan; sent: number; total: number }
  | { kind: "tracking"; plan: StartAgainPlan; outcome: BulkOutcome; started: RunRef[]; checks: number; done: boolean };

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
  const queryClient = useQueryClient();
  const { planned: members, left } = useMemo(() => boundedMembers(allMembers), [allMembers]);
  const [stage, setStage] = useState<Stage>(() => ({ kind: "planned", plan: startAgainPlan(members, Date.now()) }));
  const abortRef = useRef<AbortController>(new AbortController());
  useEffect(() => () => abortRef.current.abort(), []);
  const client = browserDwClientFor(namespace);

  const execute = async (plan: StartAgainPlan) => {
    const signal = abortRef.current.signal;
    const targets = plan.runs.filter((run) => run.bucket === "start");
    setStage({ kind: "sending", plan, sent: 0, total: targets.length });
    const answers = await mapBounded(
      targets,
      BULK_SEND_CONCURRENCY,
      (run) =>
        sendRunAction(
          namespace,
          {
            action: "startAgain",
            workflowId: run.workflowId,
            runId: run.runId,
            requestId: newRequestId(),
            newWorkflowId: run.newWorkflowId ?? "",
          },
          signal,
        ),
      (done) => setStage({ kind: "sending", plan, sent: done, total: targets.length }),
      signal,
    );
    const sends = answers.map((sent): SendResult => {
      if (!sent) return { kind: "error", reason: "aborted" };
      if (!sent.ok) return { kind: "error", reason: sent.error.reason };
      return sent.answer.result === "accepted"
        ? { kind: "accepted", outcome: sent.answer.outcome }
        : { kind: "rejected", reason: sent.answer.rejectionReason ?? sent.answer.outcome };
    });
    // The new runs, as the server named them in its answers.
    const started = answers.map((sent): RunRef | null =>
      sent?.ok && sent.answer.result === "accepted" && sent.answer.runId
        ? { workflowId: sent.answer.workflowId, runId: sent.answer.runId }
        : null,
    );
    const startedAt = Date.now();
    let checks = 0;
    for (;;) {
      if (signal.aborted) return;
      const follow = await mapBounded(
        started,
        BULK_READ_CONCURRENCY,
        (run) => (run ? followUp(client, run, signal) : Promise.resolve(null)),
        undefined,
        signal,
      );
      checks += 1;
      const outcome = bulkOutcome(
        sends,
        follow.map((entry) => entry ?? null),
      );
      const done = outcome.settled || Date.now() - startedAt > BULK_TRACK_FOR_MS;
      const refs = started.filter((run): run is RunRef => run !== null);
      setStage({ kind: "tracking", plan, outcome, started: refs, checks, done });
      if (done) return void invalidateAfterBulkRepair(queryClient, namespace, refs);
      await new Promise((resolve) => setTimeout(resolve, BULK_TRACK_INTERVAL_MS));
    }
  };

  const plan = stage.plan;
  const samples = plan.runs.filter((run) => run.bucket === "start").slice(0, SAMPLES);
  return (
    <div
      data-testid="bulk-start-again"
      data-stage={stage.kind}
      className="mt-3 space-y-3 rounded-md border border-line bg-panel-muted p-3 text-sm"
    >
      <div className="flex items-center justify-between">
        <h4 className="font-semibold">{t("title")}</h4>
        <Button variant="link" onClick={onClose} className="text-xs text-fg-muted underline">
          {t("close")}
        </Button>
      </div>
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
        <p data-testid="bulk-plan" data-start={plan.counts.start} className="font-medium">
          {stage.kind === "planned" ? t("planHeading") : t("planExecuted")}{" "}
          {t("planStart", { count: plan.counts.start })}
          {plan.counts.skip_same_workflow ? ` ${t("planSkip", { count: plan.counts.skip_same_workflow })}` : ""}
        </p>
        <ul className="text-xs text-fg-muted">
          {samples.map((run) => (
            <li key={run.runId} className="break-all">
              <span className="font-mono">{run.workflowId}</span> →{" "}
              <span className="font-mono">{run.newWorkflowId}</span>
            </li>
          ))}
        </ul>
        {stage.kind === "sending" ? (
          <div data-testid="bulk-progress">
            <p>{t("sending", { sent: stage.sent, total: stage.total })}</p>
            <progress max={stage.total || 1} value={stage.sent} className="w-full" aria-label={t("progressLabel")} />
          </div>
        ) : null}
        {stage.kind === "tracking" ? <StartOutcome namespace={namespace} stage={stage} /> : null}
      </div>
      {stage.kind === "planned" ? (
        <div className="flex items-center gap-3">
          <Button
            variant="primary"
            data-testid="bulk-execute"
            disabled={!canAct || plan.counts.start === 0}
            onClick={() => void execute(plan)}
          >
            {t("execute", { count: plan.counts.start })}
          </Button>
          {!canAct && disabledReason ? <span className="text-xs text-fg-muted">{disabledReason}</span> : null}
        </div>
      ) : null}
    </div>
  );
}

function StartOutcome({ namespace, stage }: { namespace: string; stage: Extract<Stage, { kind: "tracking" }> }) {
  const t = useTranslations("failures.bulk");
  const { outcome, started, checks, done } = stage;
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
