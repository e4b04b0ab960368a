"use client";

import { useEffect, useMemo, useRef, useState } from "react";
import Link from "next/link";
import { useTranslations } from "next-intl";
import type { RunRef } from "@/lib/views/failure-groups";
import type { BulkOutcome, FollowUp, PlanBucket, RepairPlan, SendResult } from "@/lib/confirm/bulk";
import { PLAN_BUCKETS, bulkOutcome, mapBounded, repairPlan } from "@/lib/confirm/bulk";
import { useQueryClient } from "@tanstack/react-query";
import type { DwClient } from "@/lib/dw/transport";
import { browserDwClientFor } from "@/lib/dw/browser-client";
import { invalidateAfterBulkRepair } from "@/lib/queries/invalidate";
import { newRequestId, sendRunAction } from "@/components/actions/send-action";
import { runHref } from "@/lib/routes/route-for";
import { Button } from "@/components/ui/button";
import {
  BULK_READ_CONCURRENCY,
  BULK_SEND_CONCURRENCY,
  BULK_TRACK_FOR_MS,
  BULK_TRACK_INTERVAL_MS,
  WALK_LIMITS,
  boundedMembers,
} from "@/lib/confirm/bulk-limits";

// Every bound of a bulk repair is in lib/confirm/bulk-limits.ts, and the panel states them.
const PLAN_CONCURRENCY = BULK_READ_CONCURRENCY;
const SEND_CONCURRENCY = BULK_SEND_CONCURRENCY;
const TRACK_INTERVAL_MS = BULK_TRACK_INTERVAL_MS;
const TRACK_FOR_MS = BULK_TRACK_FOR_MS;

type Stage =
  | { kind: "planning"; read: number }
  | { kind: "planned"; plan: RepairPlan }
  | { kind: "sending"; plan: RepairPlan; sent: number; total: number }
  | { kind: "tracking"; plan: RepairPlan; outcome: BulkOutcome; checks: number; done: boolean };

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
  const queryClient = useQueryClient();
  // A stable slice per member list, so the planning effect runs once per group.
  const { planned: members, left } = useMemo(() => boundedMembers(allMembers), [allMembers]);
  const browserDwClient = browserDwClientFor(namespace);
  const t = useTranslations("attention.bulk");
  const [stage, setStage] = useState<Stage>({ kind: "planning", read: 0 });
  const abortRef = useRef<AbortController>(new AbortController());

  useEffect(() => {
    const controller = new AbortController();
    abortRef.current = controller;
    void (async () => {
      const debugs = await mapBounded(
        members,
        PLAN_CONCURRENCY,
        async (run) =>
          browserDwClient.debugRun(run.workflowId, run.runId, {}, { signal: controller.signal }).catch(() => null),
        (done) => setStage({ kind: "planning", read: done }),
        controller.signal,
      );
      if (controller.signal.aborted) return;
      setStage({
        kind: "planned",
        plan: repairPlan(members.map((run, index) => ({ ...run, debug: debugs[index] ?? null }))),
      });
    })();
    return () => controller.abort();
  }, [members, browserDwClient]);

  const execute = async (plan: RepairPlan) => {
    const signal = abortRef.current.signal;
    const targets = plan.runs
      .filter((run) => run.bucket === "repair")
      .map(({ workflowId, runId }) => ({ workflowId, runId }));
    setStage({ kind: "sending", plan, sent: 0, total: targets.length });
    const sends = await mapBounded(
      targets,
      SEND_CONCURRENCY,
      async (run): Promise<SendResult> => {
        const sent = await sendRunAction(
          namespace,
          { action: "repair", workflowId: run.workflowId, runId: run.runId, requestId: newRequestId() },
          signal,
        );
        if (!sent.ok) return { kind: "error", reason: sent.error.reason };
        return sent.answer.result === "accepted"
          ? { kind: "accepted", outcome: sent.answer.outcome }
          : { kind: "rejected", reason: sent.answer.rejectionReason ?? sent.answer.outcome };
      },
      (done) => setStage({ kind: "sending", plan, sent: done, total: targets.length }),
      signal,
    );
    const results = sends.map((send): SendResult => send ?? { kind: "error", reason: "aborted" });
    const startedAt = Date.now();
    let checks = 0;
    for (;;) {
      if (signal.aborted) return;
      const follow = await mapBounded(
        targets,
        PLAN_CONCURRENCY,
        (run, index) =>
          results[index]?.kind === "accepted" ? followUp(browserDwClient, run, signal) : Promise.resolve(null),
        undefined,
        signal,
      );
      checks += 1;
      const outcome = bulkOutcome(
        results,
        follow.map((entry) => entry ?? null),
      );
      const done = outcome.settled || Date.now() - startedAt > TRACK_FOR_MS;
      setStage({ kind: "tracking", plan, outcome, checks, done });
      // Once the repaired runs settled (or tracking gave up): those runs, the lists and the inbox re-read.
      if (done) return void invalidateAfterBulkRepair(queryClient, namespace, targets);
      await new Promise((resolve) => setTimeout(resolve, TRACK_INTERVAL_MS));
    }
  };

  useEffect(() => () => abortRef.current.abort(), []);

  const plan = stage.kind === "planning" ? null : stage.plan;
  return (
    <div
      data-testid="bulk-repair"
      data-stage={stage.kind}
      className="mt-3 space-y-3 rounded-md border border-line bg-panel-muted p-3 text-sm"
    >
      <div className="flex items-center justify-between">
        <h4 className="font-semibold">{t("title")}</h4>
        <Button variant="link" onClick={onClose} className="text-xs text-fg-muted underline">
          {t("close")}
        </Button>
      </div>
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
        {stage.kind === "planning" ? <p>{t("planning", { read: stage.read, total: members.length })}</p> : null}
        {plan ? <PlanView namespace={namespace} plan={plan} executed={stage.kind !== "planned"} /> : null}
        {stage.kind === "sending" ? (
          <div data-testid="bulk-progress" className="mt-2 space-y-1">
            <p>{t("sending", { sent: stage.sent, total: stage.total })}</p>
            <progress max={stage.total || 1} value={stage.sent} className="w-full" aria-label={t("progressLabel")} />
          </div>
        ) : null}
        {stage.kind === "tracking" ? (
          <OutcomeView outcome={stage.outcome} checks={stage.checks} done={stage.done} />
        ) : null}
      </div>
      {stage.kind === "planned" ? (
        <div className="flex items-center gap-3">
          <Button
            variant="primary"
            data-testid="bulk-execute"
            disabled={!canAct || stage.plan.counts.repair === 0}
            onClick={() => void execute(stage.plan)}
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
