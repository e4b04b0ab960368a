"use client";

import { useCallback, useState } from "react";
import { useQueryClient } from "@tanstack/react-query";
import type { ActionAnswer, ActionError, RunActionRequest } from "@/lib/actions/contract";
import type { RunAction } from "@/lib/views/capabilities";
import { sendRunAction } from "@/components/actions/send-action";
import { CONFIRM_TIMEOUT_MS, useConfirmation } from "@/components/actions/use-confirmation";
import { invalidateAfterRunAction } from "@/lib/queries/invalidate";

export type Phase =
  | { kind: "idle" }
  | { kind: "sending"; action: RunAction }
  | { kind: "answered"; action: RunAction; answer: ActionAnswer; answerMs: number }
  | { kind: "failed"; action: RunAction; error: ActionError };

/**
 * Sends one request through the guarded handler, keeps the phase the status line shows, and starts
 * confirming an accepted command against the run's durable history.
 */
export function useActionSubmit({
  namespace,
  workflowId,
  runId,
  lastSequence,
}: {
  /** The page's namespace: actions are sent there (X-Namespace), whatever another tab switched to. */
  namespace: string;
  workflowId: string;
  runId: string;
  /** Last history sequence the page knows; the confirmation reads events after it. */
  lastSequence: number | null;
}) {
  const queryClient = useQueryClient();
  const [phase, setPhase] = useState<Phase>({ kind: "idle" });
  const confirmation = useConfirmation(namespace, () => {
    void invalidateAfterRunAction(queryClient, namespace, { workflowId, runId });
  });
  const { start, reset } = confirmation;

  const submit = useCallback(
    async (request: RunActionRequest) => {
      const action = request.action;
      reset();
      const clickedAt = performance.now();
      setPhase({ kind: "sending", action });
      const sent = await sendRunAction(namespace, request);
      if (!sent.ok) return setPhase({ kind: "failed", action, error: sent.error });
      const answer = sent.answer;
      setPhase({ kind: "answered", action, answer, answerMs: Math.round(performance.now() - clickedAt) });
      if (answer.result !== "accepted") return;
      const isStart = action === "startAgain";
      // A run has one cancellation request: a repeated one answers the first, recorded before this
      // page's last event, so its history is read from the start; the close may take the whole bound.
      const isCancellation = request.action === "requestCancellation";
      start({
        command: { action, commandId: answer.commandId, outcome: answer.outcome },
        workflowId: isStart ? answer.workflowId : workflowId,
        runId: isStart ? (answer.runId ?? "") : runId,
        afterSequence: isStart || isCancellation ? null : lastSequence,
        timeoutMs: isCancellation ? request.cleanupTimeoutSeconds * 1000 + CONFIRM_TIMEOUT_MS : undefined,
        clickedAt,
      });
    },
    [reset, start, namespace, workflowId, runId, lastSequence],
  );

  const confirmState = confirmation.state;
  const recheck = useCallback(() => {
    if (confirmState) start({ ...confirmState.target });
  }, [confirmState, start]);

  const busy = phase.kind === "sending" || confirmState?.confirmation.phase === "awaiting";
  return { phase, confirmState, busy, submit, recheck };
}
