"use client";

import { useMemo, useState } from "react";
import { useFormatter, useTranslations } from "next-intl";
import type { BulkSent } from "@/lib/confirm/bulk-runner";
import { bulkView } from "@/lib/confirm/bulk-runner";
import type { BatchAction, BatchFollowUp, BatchOutcome, BatchPlan, BatchPlannedRun } from "@/lib/views/run-batch";
import { BATCH_BUCKETS, batchOutcome, batchPlan } from "@/lib/views/run-batch";
import type { RunDescription } from "@/lib/dw/schemas-workflows";
import { browserDwClientFor } from "@/lib/dw/browser-client";
import { newRequestId, sendRunAction } from "@/components/actions/send-action";
import type { BulkFlow } from "@/components/actions/use-bulk-runner";
import { toSendResult, useBulkRunner } from "@/components/actions/use-bulk-runner";
import { Button } from "@/components/ui/button";
import { BulkPanelHeader } from "@/components/actions/bulk-panel";
import { BATCH_TRACK_FOR_MS, BatchLimits, BatchPlanList, SendTally } from "@/components/run-list/batch-plan-list";

export interface BatchTarget {
  workflowId: string;
  runId: string;
}

type CancelFlow = BulkFlow<
  BatchTarget,
  RunDescription | null,
  BatchPlan,
  BatchPlannedRun,
  string,
  BulkSent,
  BatchFollowUp,
  BatchOutcome
>;

/** The dry run is a fresh describe of each run; a run counts as done once it is closed. */
function cancelFlow(namespace: string, action: BatchAction): CancelFlow {
  const client = browserDwClientFor(namespace);
  return {
    read: (run, signal) => client.describeRun(run.workflowId, run.runId, { signal }).catch(() => null),
    plan: (targets, described) =>
      batchPlan(
        action,
        targets.map((run, index) => ({ ...run, describe: described[index] ?? null })),
      ),
    sendTo: (plan) => plan.runs.filter((run) => run.bucket === "send"),
    send: async ({ workflowId, runId }, reason, signal) => ({
      result: toSendResult(
        await sendRunAction(namespace, { action, workflowId, runId, reason, requestId: newRequestId() }, signal),
      ),
    }),
    follow: async (run, _sent, signal) => {
      const described = await client.describeRun(run.workflowId, run.runId, { signal }).catch(() => null);
      return described ? { status: described.status, isTerminal: described.is_terminal } : null;
    },
    outcome: (_plan, sends, follows) => batchOutcome(sends, follows),
    settled: (outcome) => outcome.settled,
    trackForMs: BATCH_TRACK_FOR_MS,
    touched: (runs) => runs,
  };
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
  const [reason, setReason] = useState("");
  const flow = useMemo(() => cancelFlow(namespace, action), [namespace, action]);
  const { stage, execute } = useBulkRunner(namespace, targets, flow);
  const view = bulkView(stage);

  const plan = view.plan;
  return (
    <section
      data-testid="runs-batch"
      data-action={action}
      data-stage={view.shown}
      aria-label={t(`title.${action}`)}
      className="space-y-3 rounded-lg border border-line bg-panel-muted p-3 text-sm"
    >
      <BulkPanelHeader heading="h2" title={t(`title.${action}`)} closeLabel={t("close")} onClose={onClose} />
      <BatchLimits />
      <div role="status" aria-live="polite">
        {view.reads ? <p>{t("planning", view.reads)}</p> : null}
        {plan ? <BatchPlanView namespace={namespace} plan={plan} executed={stage.kind !== "planned"} /> : null}
        {view.progress ? <p>{t("sending", view.progress)}</p> : null}
        {view.outcome ? <BatchOutcomeView outcome={view.outcome} done={view.done} /> : null}
      </div>
      {stage.kind === "planned" ? (
        <form
          className="flex flex-wrap items-end gap-3"
          onSubmit={(event) => {
            event.preventDefault();
            void execute(reason.trim());
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

export function BatchOutcomeView({ outcome, done }: { outcome: BatchOutcome; done: boolean }) {
  const t = useTranslations("runs.batch");
  const status = useTranslations("codes.status");
  const format = useFormatter();
  // Each status as the operator's word with its count, joined here but worded by the catalog.
  const closed = Object.entries(outcome.closedBy).map(([code, count]) =>
    t("closedAs", {
      count,
      status: status.has(code as Parameters<typeof status.has>[0])
        ? status(code as Parameters<typeof status>[0])
        : code,
    }),
  );
  return (
    <div data-testid="runs-batch-outcome" data-settled={outcome.settled} className="mt-2 space-y-1">
      <SendTally outcome={outcome} />
      <p data-testid="runs-batch-closed" className={outcome.settled ? "text-ok" : undefined}>
        {t("afterwards", {
          closed: closed.length ? format.list(closed, { type: "conjunction" }) : "0",
          open: outcome.stillOpen,
        })}
      </p>
      <p className="text-xs text-fg-muted">{done ? t("trackingDone") : t("tracking")}</p>
    </div>
  );
}
