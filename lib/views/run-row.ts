import type { LivenessInput, Tone } from "./liveness";
import { livenessLabel } from "./liveness";
import type { Message } from "./message";

/**
 * What a runs-list row says beyond the list item. The real list item carries status, bucket, queue
 * and times only (WorkflowController@index, durable-workflow/server@11d35b7): the closed reason and
 * the run's place in its continue-as-new chain come from describe (`closed_reason`, `run_number`,
 * `run_count`, `formatRun`), liveness from debug (`execution.liveness_state`, `last_progress_at`).
 */
export interface RunRowDetail {
  closedReason: string | null;
  runNumber: number | null;
  runCount: number | null;
  /** What ended a failed run (its closing failure's type and message); absent for other runs. */
  failure?: { type: string | null; message: string | null } | null;
  /** Debug's `execution` of an open run; null for a closed run (closed runs are not stuck). */
  execution: (LivenessInput & { last_progress_at?: string | null }) | null;
}

/** Closed reasons a status does not already say: a timed-out run's status is `failed`, a continued one's `completed`. */
export const CLOSED_REASON_BADGES = ["timed_out", "continued", "cancelled", "terminated"] as const;
export type ClosedReasonBadge = (typeof CLOSED_REASON_BADGES)[number];

export interface RunRowMarks {
  closedReason: ClosedReasonBadge | null;
  /** Stuck or otherwise needing an operator, by liveness; `since` is the last progress (the age's start). */
  attention: { label: Message; tone: Tone; stuck: boolean; since: string | null } | null;
  /** "run 3 of 4": only for runs of a chain longer than one. */
  chain: { number: number; count: number | null } | null;
}

interface RowLike {
  status: string;
  is_terminal: boolean;
}

export function runRowMarks(row: RowLike, detail: RunRowDetail | undefined): RunRowMarks {
  if (!detail) return { closedReason: null, attention: null, chain: null };
  const reason = detail.closedReason;
  const closedReason =
    reason !== null && reason !== row.status && (CLOSED_REASON_BADGES as readonly string[]).includes(reason)
      ? (reason as ClosedReasonBadge)
      : null;
  const liveness = !row.is_terminal && detail.execution ? livenessLabel(detail.execution) : null;
  const attention =
    liveness?.needsAttention === true
      ? {
          label: liveness.label,
          tone: liveness.tone,
          stuck: liveness.stuck,
          since: detail.execution?.last_progress_at ?? null,
        }
      : null;
  const count = detail.runCount ?? (row.is_terminal ? null : detail.runNumber);
  const inChain = (detail.runNumber ?? 1) > 1 || (count ?? 1) > 1 || closedReason === "continued";
  const chain = inChain && detail.runNumber !== null ? { number: detail.runNumber, count } : null;
  return { closedReason, attention, chain };
}
