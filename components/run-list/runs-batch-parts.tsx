"use client";

import Link from "@/components/ui/link";
import { useTranslations } from "next-intl";
import { runHref } from "@/lib/routes/route-for";
import { WALK_LIMITS } from "@/lib/confirm/bulk-limits";

/** A cancel takes effect when the workflow's next task runs; a terminate at once. Tracking stops after this long. */
export const BATCH_TRACK_FOR_MS = 2 * 60_000;

export interface PlanRow {
  bucket: string;
  count: number;
  label: string;
  className?: string;
}

export interface PlanRun {
  bucket: string;
  workflowId: string;
  runId: string;
}

/** Runs named beside a plan line; the rest are only counted. */
const NAMED_RUNS = 3;

/** A batch dry run as the runs list shows it: one line per bucket, its count and its first runs. */
export function BatchPlanList({
  namespace,
  executed,
  rows,
  runs,
}: {
  namespace: string;
  executed: boolean;
  rows: readonly PlanRow[];
  runs: readonly PlanRun[];
}) {
  const t = useTranslations("runs.batch");
  return (
    <div data-testid="runs-batch-plan">
      <p className="font-medium">{executed ? t("planExecuted") : t("planHeading")}</p>
      <ul className="mt-1 space-y-1">
        {rows.map((row) => (
          <li key={row.bucket} data-bucket={row.bucket} data-count={row.count} className={row.className}>
            <span className="font-medium tabular-nums">{row.count}</span> {row.label}
            <span className="ml-2 text-xs text-fg-muted">
              {runs
                .filter((run) => run.bucket === row.bucket)
                .slice(0, NAMED_RUNS)
                .map((run, index) => (
                  <span key={run.runId}>
                    {index > 0 ? ", " : ""}
                    <Link href={runHref(namespace, run.workflowId, run.runId)} className="font-mono text-accent">
                      {run.workflowId}
                    </Link>
                  </span>
                ))}
            </span>
          </li>
        ))}
      </ul>
    </div>
  );
}

/** How many commands the server accepted, and the ones it did not. */
export function SendTally({
  outcome,
}: {
  outcome: { accepted: number; sent: number; rejected: number; errors: number };
}) {
  const t = useTranslations("runs.batch");
  return (
    <>
      <p className="font-medium">{t("accepted", { accepted: outcome.accepted, sent: outcome.sent })}</p>
      {outcome.rejected || outcome.errors ? (
        <p className="text-bad">{t("notApplied", { rejected: outcome.rejected, errors: outcome.errors })}</p>
      ) : null}
    </>
  );
}

/** The bounds a runs-list batch keeps, stated on the panel. */
export function BatchLimits() {
  const t = useTranslations("runs.batch");
  return (
    <p className="text-xs text-fg-muted">
      {t("limits", {
        reads: WALK_LIMITS.bulkReadConcurrency,
        sends: WALK_LIMITS.bulkSendConcurrency,
        interval: WALK_LIMITS.trackIntervalSeconds,
        minutes: BATCH_TRACK_FOR_MS / 60_000,
      })}
    </p>
  );
}
