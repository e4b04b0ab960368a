"use client";

import { useMemo, useState } from "react";
import { useFormatter, useTranslations } from "next-intl";
import type { BulkSent } from "@/lib/confirm/bulk-runner";
import type { BatchAction, BatchFollowUp, BatchOutcome, BatchPlan, BatchPlannedRun } from "@/lib/views/run-batch";
import { BATCH_BUCKETS, batchOutcome, batchPlan } from "@/lib/views/run-batch";
import type { RunDescription } from "@/lib/dw/schemas-workflows";
import { browserDwClientFor } from "@/lib/dw/browser-client";
import { newRequestId, sendRunAction } from "@/components/actions/send-action";
import type { BulkFlow } from "@/components/actions/use-bulk-runner";
import { toSendResult, useBulkRunner } from "@/components/actions/use-bulk-runner";
import { BulkInput, BulkPanel, BulkPlanBuckets, BulkSend, toneClass } from "@/components/actions/bulk-panel";
import { afterTone, shownBuckets } from "@/lib/views/bulk-panel";
import type { RunsBatchProps } from "@/components/run-list/runs-batch-parts";
import { BATCH_TRACK_FOR_MS, BatchOutcomeFrame } from "@/components/run-list/runs-batch-parts";

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
}: RunsBatchProps & { action: BatchAction }) {
  const t = useTranslations("runs.batch");
  const [reason, setReason] = useState("");
  const flow = useMemo(() => cancelFlow(namespace, action), [namespace, action]);
  const { view, execute } = useBulkRunner(namespace, targets, flow);
  return (
    <BulkPanel
      testId="runs-batch"
      data={{ "data-action": action }}
      place="section"
      view={view}
      words={t}
      title={t(`title.${action}`)}
      onClose={onClose}
      trackForMs={BATCH_TRACK_FOR_MS}
      reading={(reads) => t("planning", reads)}
      plan={(plan, heading) => (
        <BulkPlanBuckets
          testId="runs-batch-plan"
          namespace={namespace}
          heading={heading}
          runs={plan.runs}
          lines={shownBuckets(BATCH_BUCKETS, plan.counts, "send").map((bucket) => ({
            bucket,
            count: plan.counts[bucket],
            label: t(`bucket.${bucket}`, { action: plan.action }),
          }))}
        />
      )}
      outcome={(outcome) => <BatchOutcomeView outcome={outcome} done={view.done} />}
      controls={(plan) => (
        <form
          className="flex flex-wrap items-end gap-3"
          onSubmit={(event) => {
            event.preventDefault();
            void execute(reason.trim());
          }}
        >
          <BulkInput
            label={t("reason")}
            testId="runs-batch-reason"
            value={reason}
            onChange={setReason}
            maxLength={1000}
            className="w-80"
          />
          <BulkSend
            testId="runs-batch-execute"
            label={t(`execute.${action}`, { count: plan.counts.send })}
            disabled={!canAct || plan.counts.send === 0 || reason.trim() === ""}
            refusal={canAct ? null : disabledReason}
          />
        </form>
      )}
    />
  );
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
    <BatchOutcomeFrame outcome={outcome} done={done}>
      <p data-testid="runs-batch-closed" className={toneClass(afterTone(outcome, false))}>
        {t("afterwards", {
          closed: closed.length ? format.list(closed, { type: "conjunction" }) : "0",
          open: outcome.stillOpen,
        })}
      </p>
    </BatchOutcomeFrame>
  );
}
