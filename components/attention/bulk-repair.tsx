"use client";

import { useMemo } from "react";
import Link from "@/components/ui/link";
import { useTranslations } from "next-intl";
import type { RunRef } from "@/lib/views/failure-groups";
import type { BulkOutcome, FollowUp, PlanBucket, RepairPlan } from "@/lib/confirm/bulk";
import { PLAN_BUCKETS, bulkOutcome, repairPlan } from "@/lib/confirm/bulk";
import type { BulkSent } from "@/lib/confirm/bulk-runner";
import { bulkView } from "@/lib/confirm/bulk-runner";
import type { DwClient } from "@/lib/dw/transport";
import type { WorkflowDebug } from "@/lib/dw/schemas-workflows";
import { browserDwClientFor } from "@/lib/dw/browser-client";
import { newRequestId, sendRunAction } from "@/components/actions/send-action";
import type { BulkFlow } from "@/components/actions/use-bulk-runner";
import { toSendResult, useBulkRunner } from "@/components/actions/use-bulk-runner";
import { runHref } from "@/lib/routes/route-for";
import { Button } from "@/components/ui/button";
import { BulkPanelHeader, BulkProgress } from "@/components/actions/bulk-panel";
import { BULK_TRACK_FOR_MS, WALK_LIMITS, boundedMembers } from "@/lib/confirm/bulk-limits";

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
export function BulkRepair({
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
  // A stable slice per member list, so the dry run runs once per group.
  const { planned: members, left } = useMemo(() => boundedMembers(allMembers), [allMembers]);
  const t = useTranslations("attention.bulk");
  const flow = useMemo(() => repairFlow(namespace), [namespace]);
  const { stage, execute } = useBulkRunner(namespace, members, flow);
  const view = bulkView(stage);
  const plan = view.plan;
  return (
    <div
      data-testid="bulk-repair"
      data-stage={view.shown}
      className="mt-3 space-y-3 rounded-md border border-line bg-panel-muted p-3 text-sm"
    >
      <BulkPanelHeader heading="h4" title={t("title")} closeLabel={t("close")} onClose={onClose} />
      <p data-testid="bulk-limits" className="text-xs text-fg-muted">
        {t("limits", {
          reads: WALK_LIMITS.bulkReadConcurrency,
          sends: WALK_LIMITS.bulkSendConcurrency,
          interval: WALK_LIMITS.trackIntervalSeconds,
          minutes: WALK_LIMITS.trackForMinutes,
          cacheMinutes: WALK_LIMITS.closedCacheMinutes,
        })}
        {left > 0 ? ` ${t("capped", { limit: WALK_LIMITS.bulkMaxRuns, total: allMembers.length })}` : ""}
      </p>
      <div role="status" aria-live="polite">
        {view.reads ? <p>{t("planning", view.reads)}</p> : null}
        {plan ? <PlanView namespace={namespace} plan={plan} executed={stage.kind !== "planned"} /> : null}
        {view.progress ? (
          <BulkProgress
            progress={view.progress}
            text={t("sending", view.progress)}
            label={t("progressLabel")}
            className="mt-2 space-y-1"
          />
        ) : null}
        {view.outcome ? <OutcomeView outcome={view.outcome} checks={view.checks} done={view.done} /> : null}
      </div>
      {stage.kind === "planned" ? (
        <div className="flex items-center gap-3">
          <Button
            variant="primary"
            data-testid="bulk-execute"
            disabled={!canAct || stage.plan.counts.repair === 0}
            onClick={() => void execute()}
          >
            {t("execute", { count: stage.plan.counts.repair })}
          </Button>
          {!canAct && disabledReason ? <span className="text-xs text-fg-muted">{disabledReason}</span> : null}
        </div>
      ) : null}
    </div>
  );
}

function PlanView({ namespace, plan, executed }: { namespace: string; plan: RepairPlan; executed: boolean }) {
  const t = useTranslations("attention.bulk");
  const rows = PLAN_BUCKETS.filter((bucket) => bucket === "repair" || plan.counts[bucket] > 0);
  return (
    <div data-testid="bulk-plan">
      <p className="font-medium">{executed ? t("planExecuted") : t("planHeading")}</p>
      <ul className="mt-1 space-y-1">
        {rows.map((bucket: PlanBucket) => (
          <li key={bucket} data-bucket={bucket} data-count={plan.counts[bucket]}>
            <span className="font-medium tabular-nums">{plan.counts[bucket]}</span> {t(`bucket.${bucket}`)}
            {plan.samples[bucket].length ? (
              <span className="ml-2 text-xs text-fg-muted">
                {t("samples")}{" "}
                {plan.samples[bucket].map((run, index) => (
                  <span key={run.runId}>
                    {index > 0 ? ", " : ""}
                    <Link
                      href={runHref(namespace, run.workflowId, run.runId)}
                      className="font-mono text-accent hover:underline"
                    >
                      {run.workflowId}
                    </Link>
                  </span>
                ))}
              </span>
            ) : null}
          </li>
        ))}
      </ul>
    </div>
  );
}

function OutcomeView({ outcome, checks, done }: { outcome: BulkOutcome; checks: number; done: boolean }) {
  const t = useTranslations("attention.bulk");
  const categories = Object.entries(outcome.failedByCategory);
  return (
    <div
      data-testid="bulk-outcome"
      data-settled={outcome.settled}
      data-completed={outcome.completed}
      className="mt-2 space-y-1"
    >
      <p className="font-medium">
        {t("sent", {
          accepted: outcome.accepted,
          sent: outcome.sent,
          dispatched: outcome.dispatched,
          notNeeded: outcome.notNeeded,
        })}
      </p>
      {outcome.rejected || outcome.errors ? (
        <p className="text-bad">{t("notApplied", { rejected: outcome.rejected, errors: outcome.errors })}</p>
      ) : null}
      <p className={outcome.failedAgain || outcome.stillStuck ? "text-bad" : outcome.settled ? "text-ok" : undefined}>
        {t("afterwards", {
          completed: outcome.completed,
          failed: outcome.failedAgain,
          open: outcome.stillOpen,
          stuck: outcome.stillStuck,
          other: outcome.otherClosed,
        })}
      </p>
      {categories.length ? (
        <p className="text-bad">
          {t("failedBy")} {categories.map(([category, count]) => `${category} × ${count}`).join(", ")}
        </p>
      ) : null}
      <p className="text-xs text-fg-muted">{done ? t("trackingDone", { checks }) : t("tracking", { checks })}</p>
    </div>
  );
}
