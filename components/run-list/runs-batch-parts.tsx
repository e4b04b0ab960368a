"use client";

import type { ReactNode } from "react";
import { useTranslations } from "next-intl";
import { refusals } from "@/lib/views/bulk-panel";
import { BulkOutcome } from "@/components/actions/bulk-panel";

/** A cancel takes effect when the workflow's next task runs; a terminate at once. Tracking stops after this long. */
export const BATCH_TRACK_FOR_MS = 2 * 60_000;

/** What the runs list gives a batch panel: the selected runs and whether this person may act. */
export interface RunsBatchProps {
  namespace: string;
  targets: readonly { workflowId: string; runId: string }[];
  canAct: boolean;
  disabledReason: string | null;
  onClose: () => void;
}

/** A runs-list outcome: how many commands the server accepted and refused, the flow's lines, tracking. */
export function BatchOutcomeFrame({
  outcome,
  done,
  children,
}: {
  outcome: { accepted: number; sent: number; rejected: number; errors: number; settled: boolean };
  done: boolean;
  children: ReactNode;
}) {
  const t = useTranslations("runs.batch");
  const refused = refusals(outcome);
  return (
    <BulkOutcome
      data={{ "data-testid": "runs-batch-outcome", "data-settled": outcome.settled }}
      className="mt-2 space-y-1"
      tally={t("accepted", { accepted: outcome.accepted, sent: outcome.sent })}
      refused={refused && t("notApplied", refused)}
      tracking={done ? t("trackingDone") : t("tracking")}
    >
      {children}
    </BulkOutcome>
  );
}
