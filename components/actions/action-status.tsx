"use client";

import Link from "@/components/ui/link";
import { useFormatter } from "next-intl";
import { runHref } from "@/lib/routes/route-for";
import { Button } from "@/components/ui/button";
import type { ConfirmState } from "@/components/actions/use-confirmation";
import type { Phase } from "@/components/actions/use-action-submit";
import { useActionWords } from "@/components/actions/use-action-words";
import type { DerivedWait } from "@/lib/views/waits";
import { signalFollowUp } from "@/lib/views/signal-names";

/** The run's waits as derived from history, and the last sequence they cover (the run view's snapshot). */
export interface WaitsRead {
  waits: readonly DerivedWait[];
  readThrough: number;
}

/** What became of the last action: sending, refused, rejected, or accepted and then confirmed. */
export function ActionStatus({
  namespace,
  phase,
  confirm,
  onRecheck,
  waits = null,
}: {
  namespace: string;
  phase: Phase;
  confirm: ConfirmState | null;
  onRecheck: () => void;
  /** Re-read as the run view tails the run: after a signal, whether the run still waits for one. */
  waits?: WaitsRead | null;
}) {
  const words = useActionWords();
  const { t } = words;
  if (phase.kind === "idle") return <div role="status" aria-live="polite" className="sr-only" />;
  const label = t(`action.${phase.action}`);
  return (
    <div
      role="status"
      aria-live="polite"
      data-testid="action-status"
      className="space-y-2 rounded-lg border border-line bg-panel px-4 py-3 text-sm"
    >
      {phase.kind === "sending" ? <p data-state="sending">{t("status.sending", { action: label })}</p> : null}
      {phase.kind === "failed" ? (
        <p data-state="refused" className="text-bad">
          {t("status.refused", { action: label })} {words.error(phase.error)}
          <span className="mt-1 block font-mono text-xs text-fg-muted">{phase.error.message}</span>
        </p>
      ) : null}
      {phase.kind === "answered" && phase.answer.result === "rejected" ? (
        <p data-state="rejected" className="text-bad">
          {t("status.rejected", { action: label, status: phase.answer.httpStatus })}{" "}
          {words.rejection(phase.answer.rejectionReason, phase.answer.outcome)}
          {phase.answer.message ? (
            <span className="mt-1 block text-xs text-fg-muted">{phase.answer.message}</span>
          ) : null}
        </p>
      ) : null}
      {phase.kind === "answered" && phase.answer.result === "accepted" ? (
        <>
          <p data-state="accepted">
            {t("status.accepted", { action: label, outcome: phase.answer.outcome ?? "–", ms: phase.answerMs })}
            {phase.answer.commandId ? (
              <span className="ml-1 font-mono text-xs text-fg-muted">
                {t("status.commandId", { id: phase.answer.commandId })}
              </span>
            ) : null}
          </p>
          {confirm ? (
            <ConfirmationView namespace={namespace} confirm={confirm} onRecheck={onRecheck} waits={waits} />
          ) : null}
        </>
      ) : null}
    </div>
  );
}

function ConfirmationView({
  namespace,
  confirm,
  onRecheck,
  waits,
}: {
  namespace: string;
  confirm: ConfirmState;
  onRecheck: () => void;
  waits: WaitsRead | null;
}) {
  const words = useActionWords();
  const { t } = words;
  const format = useFormatter();
  const { confirmation, target } = confirm;
  const mark: Record<string, string> = { done: "✓", pending: "…", failed: "✗", skipped: "–" };
  return (
    <div
      data-testid="confirmation"
      data-phase={confirmation.phase}
      data-durable-ms={confirm.durableMs ?? ""}
      className="space-y-1"
    >
      <p className="font-medium">
        {confirmation.phase === "awaiting" ? t("confirm.awaiting") : null}
        {confirmation.phase === "confirmed"
          ? t("confirm.confirmed", {
              // One decimal in the operator's locale ("1.5 s", "1,5 s"), as the other durations read.
              seconds: format.number((confirm.durableMs ?? 0) / 1000, {
                minimumFractionDigits: 1,
                maximumFractionDigits: 1,
              }),
            })
          : null}
        {confirmation.phase === "failed" ? t("confirm.failed") : null}
        {confirmation.phase === "timed_out"
          ? t("confirm.timedOut", { seconds: Math.round(confirmation.elapsedMs / 1000) })
          : null}
      </p>
      <ol className="space-y-0.5">
        {confirmation.steps.map((step) => (
          <li
            key={step.id}
            data-step={step.id}
            data-status={step.status}
            className={step.status === "failed" ? "text-bad" : step.status === "done" ? "text-ok" : "text-fg-muted"}
          >
            <span aria-hidden="true" className="inline-block w-4">
              {mark[step.status]}
            </span>
            {words.step(step)}
          </li>
        ))}
      </ol>
      {confirmation.phase === "timed_out" ? (
        <Button size="xs" onClick={onRecheck}>
          {t("confirm.recheck")}
        </Button>
      ) : null}
      {confirm.readError ? (
        <p className="text-xs text-warn">{t("confirm.readError", { message: confirm.readError })}</p>
      ) : null}
      {target.command.action === "repair" && confirmation.phase === "confirmed" && confirm.runStatus ? (
        <p data-testid="run-follow-up" data-run-status={confirm.runStatus}>
          {t("confirm.followUp", { status: confirm.runStatus, liveness: confirm.livenessState ?? "–" })}
        </p>
      ) : null}
      {target.command.action === "signal" && confirmation.phase === "confirmed" ? (
        <SignalFollowUpLine confirm={confirm} waits={waits} />
      ) : null}
      {target.command.action === "startAgain" && confirmation.phase === "confirmed" ? (
        <p>
          <Link href={runHref(namespace, target.workflowId, target.runId)} className="text-accent underline">
            {t("confirm.openNewRun", { workflowId: target.workflowId })}
          </Link>
        </p>
      ) : null}
    </div>
  );
}

/** After a durable signal: the run's open signal waits once the derived waits cover the recorded event. */
function SignalFollowUpLine({ confirm, waits }: { confirm: ConfirmState; waits: WaitsRead | null }) {
  const { t } = useActionWords();
  const recorded = confirm.confirmation.steps.find((step) => step.id === "command_recorded")?.sequence ?? null;
  const followUp = signalFollowUp(waits?.waits, waits?.readThrough, recorded);
  return (
    <p
      data-testid="signal-follow-up"
      data-follow-up={followUp.kind}
      className={followUp.kind === "still_waiting" ? "text-warn" : "text-fg-muted"}
    >
      {followUp.kind === "checking" ? t("signalCheck.checking") : null}
      {followUp.kind === "still_waiting" ? t("signalCheck.stillWaiting", { names: followUp.names.join(", ") }) : null}
      {followUp.kind === "not_waiting" ? t("signalCheck.notWaiting") : null}
    </p>
  );
}
