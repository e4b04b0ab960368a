"use client";

import { useEffect, useRef, useState } from "react";
import { useTranslations } from "next-intl";
import { useQueryClient } from "@tanstack/react-query";
import type { SendResult } from "@/lib/confirm/bulk";
import { mapBounded } from "@/lib/confirm/bulk";
import {
  BULK_READ_CONCURRENCY,
  BULK_SEND_CONCURRENCY,
  BULK_TRACK_INTERVAL_MS,
  WALK_LIMITS,
} from "@/lib/confirm/bulk-limits";
import type { BatchAction, BatchFollowUp, BatchOutcome, BatchPlan } from "@/lib/views/run-batch";
import { BATCH_BUCKETS, batchOutcome, batchPlan } from "@/lib/views/run-batch";
import { browserDwClientFor } from "@/lib/dw/browser-client";
import { invalidateAfterBulkRepair } from "@/lib/queries/invalidate";
import { newRequestId, sendRunAction } from "@/components/actions/send-action";
import { Button } from "@/components/ui/button";
import { BatchPlanList, SendTally } from "@/components/run-list/batch-plan-list";

/** A cancel takes effect when the workflow's next task runs; a terminate at once. Tracking stops after this long. */
export const BATCH_TRACK_FOR_MS = 2 * 60_000;

export interface BatchTarget {
  workflowId: string;
  runId: string;
}

type Stage =
  | { kind: "planning"; read: number }
  | { kind: "planned"; plan: BatchPlan }
  | { kind: "sending"; plan: BatchPlan; sent: number; total: number }
  | { kind: "tracking"; plan: BatchPlan; outcome: BatchOutcome; checks: number; done: boolean };

async function sendOne(namespace: string, action: BatchAction, run: BatchTarget, reason: string, signal: AbortSignal) {
  const sent = await sendRunAction(namespace, { action, ...run, reason, requestId: newRequestId() }, signal);
  if (!sent.ok) return { kind: "error", reason: sent.error.reason } satisfies SendResult;
  return sent.answer.result === "accepted"
    ? ({ kind: "accepted", outcome: sent.answer.outcome } satisfies SendResult)
    : ({ kind: "rejected", reason: sent.answer.rejectionReason ?? sent.answer.outcome } satisfies SendResult);
}

/**
 * Cancel or terminate the selected runs in three visible stages, as bulk repair does: a dry run
 * (a fresh describe of each run, nothing sent), the commands with a reason and progress, then what
 * the runs did (closed as what, still open), re-read until they all closed or tracking gave up.
 */
export function RunsBatch({
  namespace,
  action,
  targets,
  canAct,
  disabledReason,
  onClose,
}: {
  namespace: string;
  action: BatchAction;
  targets: readonly BatchTarget[];
  canAct: boolean;
  disabledReason: string | null;
  onClose: () => void;
}) {
  const t = useTranslations("runs.batch");
  const queryClient = useQueryClient();
  const [stage, setStage] = useState<Stage>({ kind: "planning", read: 0 });
  const [reason, setReason] = useState("");
  const abortRef = useRef(new AbortController());

  useEffect(() => {
    const controller = new AbortController();
    abortRef.current = controller;
    const client = browserDwClientFor(namespace);
    void (async () => {
      const described = await mapBounded(
        targets,
        BULK_READ_CONCURRENCY,
        (run) => client.describeRun(run.workflowId, run.runId, { signal: controller.signal }).catch(() => null),
        (done) => setStage({ kind: "planning", read: done }),
        controller.signal,
      );
      if (controller.signal.aborted) return;
      const plan = batchPlan(
        action,
        targets.map((run, index) => ({ ...run, describe: described[index] ?? null })),
      );
      setStage({ kind: "planned", plan });
    })();
    return () => controller.abort();
  }, [namespace, action, targets]);

  const execute = async (plan: BatchPlan) => {
    const signal = abortRef.current.signal;
    const client = browserDwClientFor(namespace);
    const sendTo = plan.runs.filter((run) => run.bucket === "send");
    setStage({ kind: "sending", plan, sent: 0, total: sendTo.length });
    const sends = await mapBounded(
      sendTo,
      BULK_SEND_CONCURRENCY,
      (run) => sendOne(namespace, action, run, reason.trim(), signal),
      (done) => setStage({ kind: "sending", plan, sent: done, total: sendTo.length }),
      signal,
    );
    const results = sends.map((send): SendResult => send ?? { kind: "error", reason: "aborted" });
    const startedAt = Date.now();
    for (let checks = 1; !signal.aborted; checks++) {
      const follow = await mapBounded(
        sendTo,
        BULK_READ_CONCURRENCY,
        async (run, index): Promise<BatchFollowUp | null> => {
          if (results[index]?.kind !== "accepted") return null;
          const described = await client.describeRun(run.workflowId, run.runId, { signal }).catch(() => null);
          return described ? { status: described.status, isTerminal: described.is_terminal } : null;
        },
        undefined,
        signal,
      );
      const outcome = batchOutcome(
        results,
        follow.map((entry) => entry ?? null),
      );
      const done = outcome.settled || Date.now() - startedAt > BATCH_TRACK_FOR_MS;
      setStage({ kind: "tracking", plan, outcome, checks, done });
      // The runs, the list and the inbox re-read once the commands settled (or tracking gave up).
      if (done) return void invalidateAfterBulkRepair(queryClient, namespace, sendTo);
      await new Promise((resolve) => setTimeout(resolve, BULK_TRACK_INTERVAL_MS));
    }
  };

  useEffect(() => () => abortRef.current.abort(), []);

  const plan = stage.kind === "planning" ? null : stage.plan;
  return (
    <section
      data-testid="runs-batch"
      data-action={action}
      data-stage={stage.kind}
      aria-label={t(`title.${action}`)}
      className="space-y-3 rounded-lg border border-line bg-panel-muted p-3 text-sm"
    >
      <div className="flex items-center justify-between">
        <h2 className="font-semibold">{t(`title.${action}`)}</h2>
        <Button variant="link" onClick={onClose} className="text-xs text-fg-muted underline">
          {t("close")}
        </Button>
      </div>
      <p className="text-xs text-fg-muted">
        {t("limits", {
          reads: WALK_LIMITS.bulkReadConcurrency,
          sends: WALK_LIMITS.bulkSendConcurrency,
          interval: WALK_LIMITS.trackIntervalSeconds,
          minutes: BATCH_TRACK_FOR_MS / 60_000,
        })}
      </p>
      <div role="status" aria-live="polite">
        {stage.kind === "planning" ? <p>{t("planning", { read: stage.read, total: targets.length })}</p> : null}
        {plan ? <BatchPlanView namespace={namespace} plan={plan} executed={stage.kind !== "planned"} /> : null}
        {stage.kind === "sending" ? <p>{t("sending", { sent: stage.sent, total: stage.total })}</p> : null}
        {stage.kind === "tracking" ? <BatchOutcomeView outcome={stage.outcome} done={stage.done} /> : null}
      </div>
      {stage.kind === "planned" ? (
        <form
          className="flex flex-wrap items-end gap-3"
          onSubmit={(event) => {
            event.preventDefault();
            void execute(stage.plan);
          }}
        >
          <label className="flex flex-col text-xs text-fg-muted">
            {t("reason")}
            <input
              required
              value={reason}
              onChange={(event) => setReason(event.target.value)}
              maxLength={1000}
              className="mt-1 h-8 w-80 rounded-md border border-line bg-panel px-2 text-sm text-fg"
              data-testid="runs-batch-reason"
            />
          </label>
          <Button
            type="submit"
            variant="primary"
            data-testid="runs-batch-execute"
            disabled={!canAct || stage.plan.counts.send === 0 || reason.trim() === ""}
          >
            {t(`execute.${action}`, { count: stage.plan.counts.send })}
          </Button>
          {!canAct && disabledReason ? <span className="text-xs text-fg-muted">{disabledReason}</span> : null}
        </form>
      ) : null}
    </section>
  );
}

function BatchPlanView({ namespace, plan, executed }: { namespace: string; plan: BatchPlan; executed: boolean }) {
  const t = useTranslations("runs.batch");
  const rows = BATCH_BUCKETS.filter((bucket) => bucket === "send" || plan.counts[bucket] > 0).map((bucket) => ({
    bucket,
    count: plan.counts[bucket],
    label: t(`bucket.${bucket}`, { action: plan.action }),
  }));
  return <BatchPlanList namespace={namespace} executed={executed} rows={rows} runs={plan.runs} />;
}

function BatchOutcomeView({ outcome, done }: { outcome: BatchOutcome; done: boolean }) {
  const t = useTranslations("runs.batch");
  const closed = Object.entries(outcome.closedBy);
  return (
    <div data-testid="runs-batch-outcome" data-settled={outcome.settled} className="mt-2 space-y-1">
      <SendTally outcome={outcome} />
      <p data-testid="runs-batch-closed" className={outcome.settled ? "text-ok" : undefined}>
        {t("afterwards", {
          closed: closed.map(([status, count]) => `${count} ${status}`).join(", ") || "0",
          open: outcome.stillOpen,
        })}
      </p>
      <p className="text-xs text-fg-muted">{done ? t("trackingDone") : t("tracking")}</p>
    </div>
  );
}
