"use client";

import { useMemo } from "react";
import { useTranslations } from "next-intl";
import type { RunRef } from "@/lib/views/failure-groups";
import type { BulkOutcome, FollowUp, RepairPlan } from "@/lib/confirm/bulk";
import { PLAN_BUCKETS, bulkOutcome, repairPlan } from "@/lib/confirm/bulk";
import type { BulkSent } from "@/lib/confirm/bulk-runner";
import type { DwClient } from "@/lib/dw/transport";
import type { WorkflowDebug } from "@/lib/dw/schemas-workflows";
import { browserDwClientFor } from "@/lib/dw/browser-client";
import { newRequestId, sendRunAction } from "@/components/actions/send-action";
import type { BulkFlow } from "@/components/actions/use-bulk-runner";
import { toSendResult, useBulkRunner } from "@/components/actions/use-bulk-runner";
import {
  BulkFailedBy,
  BulkOutcome as BulkOutcomeLines,
  BulkPanel,
  BulkPlanBuckets,
  BulkGroupSend,
  toneClass,
} from "@/components/actions/bulk-panel";
import type { GroupBulkProps } from "@/components/actions/bulk-panel";
import { BULK_TRACK_FOR_MS } from "@/lib/confirm/bulk-limits";
import { useBulkGroup } from "@/components/actions/use-bulk-group";
import { afterTone, categoryList, refusals, shownBuckets } from "@/lib/views/bulk-panel";

// Every bound of a bulk repair is in lib/confirm/bulk-limits.ts, and the panel states them.

type RepairFlow = BulkFlow<RunRef, WorkflowDebug | null, RepairPlan, RunRef, void, BulkSent, FollowUp, BulkOutcome>;

/** The dry run is a fresh debug read of each run; a repaired run counts as done once it is closed. */
function repairFlow(namespace: string): RepairFlow {
  const client = browserDwClientFor(namespace);
  return {
    read: (run, signal) => client.debugRun(run.workflowId, run.runId, {}, { signal }).catch(() => null),
    plan: (members, debugs) => repairPlan(members.map((run, index) => ({ ...run, debug: debugs[index] ?? null }))),
    sendTo: (plan) =>
      plan.runs.filter((run) => run.bucket === "repair").map(({ workflowId, runId }) => ({ workflowId, runId })),
    send: async ({ workflowId, runId }, _input, signal) => ({
      result: toSendResult(
        await sendRunAction(namespace, { action: "repair", workflowId, runId, requestId: newRequestId() }, signal),
      ),
    }),
    follow: (run, _sent, signal) => followUp(client, run, signal),
    outcome: (_plan, sends, follows) => bulkOutcome(sends, follows),
    settled: (outcome) => outcome.settled,
    trackForMs: BULK_TRACK_FOR_MS,
    touched: (runs) => runs,
  };
}

/** A run's later state (describe + debug) for a bulk tally; null when it cannot be read. */
export async function followUp(browserDwClient: DwClient, run: RunRef, signal: AbortSignal): Promise<FollowUp | null> {
  try {
    const [described, debug] = await Promise.all([
      browserDwClient.describeRun(run.workflowId, run.runId, { signal }),
      browserDwClient.debugRun(run.workflowId, run.runId, {}, { signal }),
    ]);
    const failures = [...(debug.recent_failures ?? [])].sort((a, b) =>
      (b.created_at ?? "").localeCompare(a.created_at ?? ""),
    );
    return {
      status: described.status,
      isTerminal: described.is_terminal,
      livenessState: debug.execution.liveness_state ?? null,
      failureCategory: failures[0]?.failure_category ?? null,
    };
  } catch {
    return null;
  }
}

/**
 * "Repair all in group" as three visible stages: a dry-run plan (fresh debug reads, nothing sent),
 * the repairs with progress, then what the repaired runs went on to do (ui-anchors §2 items 1, 2, 5).
 */
export function BulkRepair({ namespace, members, canAct, disabledReason, onClose }: GroupBulkProps) {
  const { planned, capped } = useBulkGroup(members);
  const t = useTranslations("attention.bulk");
  const flow = useMemo(() => repairFlow(namespace), [namespace]);
  const { view, execute } = useBulkRunner(namespace, planned, flow);
  return (
    <BulkPanel
      testId="bulk-repair"
      place="group"
      className="mt-3"
      view={view}
      words={t}
      title={t("title")}
      onClose={onClose}
      trackForMs={BULK_TRACK_FOR_MS}
      limits={{ testId: "bulk-limits", capped: capped && t("capped", capped) }}
      reading={(reads) => t("planning", reads)}
      plan={(plan, heading) => <PlanView namespace={namespace} plan={plan} heading={heading} />}
      progress={{ barLabel: t("progressLabel"), className: "mt-2 space-y-1" }}
      outcome={(outcome, tracking) => <OutcomeView outcome={outcome} tracking={tracking} />}
      controls={(plan) => (
        <BulkGroupSend
          label={t("execute", { count: plan.counts.repair })}
          count={plan.counts.repair}
          canAct={canAct}
          disabledReason={disabledReason}
          onSend={() => void execute()}
        />
      )}
    />
  );
}

function PlanView({ namespace, plan, heading }: { namespace: string; plan: RepairPlan; heading: string }) {
  const t = useTranslations("attention.bulk");
  return (
    <BulkPlanBuckets
      testId="bulk-plan"
      namespace={namespace}
      heading={heading}
      namedLabel={t("samples")}
      runs={plan.runs}
      lines={shownBuckets(PLAN_BUCKETS, plan.counts, "repair").map((bucket) => ({
        bucket,
        count: plan.counts[bucket],
        label: t(`bucket.${bucket}`),
      }))}
    />
  );
}

function OutcomeView({ outcome, tracking }: { outcome: BulkOutcome; tracking: string }) {
  const t = useTranslations("attention.bulk");
  const refused = refusals(outcome);
  return (
    <BulkOutcomeLines
      data={{ "data-testid": "bulk-outcome", "data-settled": outcome.settled, "data-completed": outcome.completed }}
      className="mt-2 space-y-1"
      tally={t("sent", {
        accepted: outcome.accepted,
        sent: outcome.sent,
        dispatched: outcome.dispatched,
        notNeeded: outcome.notNeeded,
      })}
      refused={refused && t("notApplied", refused)}
      tracking={tracking}
    >
      <p className={toneClass(afterTone(outcome, outcome.failedAgain + outcome.stillStuck > 0))}>
        {t("afterwards", {
          completed: outcome.completed,
          failed: outcome.failedAgain,
          open: outcome.stillOpen,
          stuck: outcome.stillStuck,
          other: outcome.otherClosed,
        })}
      </p>
      <BulkFailedBy label={t("failedBy")} categories={categoryList(outcome.failedByCategory)} />
    </BulkOutcomeLines>
  );
}
