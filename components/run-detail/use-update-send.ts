"use client";

import { useCallback, useEffect, useRef, useState } from "react";
import { useQueryClient } from "@tanstack/react-query";
import type { UpdateActionAnswer, UpdateActionRequest } from "@/lib/actions/update-action";
import { toUpdateActionAnswer } from "@/lib/actions/update-action";
import type { ObservedEvent } from "@/lib/confirm/confirm";
import { mergeEvents, pollDelayMs } from "@/lib/confirm/confirm";
import type { UpdateConfirmation } from "@/lib/confirm/update";
import { confirmUpdate } from "@/lib/confirm/update";
import { browserDwClientFor } from "@/lib/dw/browser-client";
import { historyResumeToken, historyTokenAfter } from "@/lib/dw/transport";
import { invalidateAfterRunAction } from "@/lib/queries/invalidate";
import type { UpdateOutcome } from "@/lib/views/update-outcome";
import { answerOutcome, errorOutcome } from "@/lib/views/update-outcome";
import { newRequestId } from "@/components/actions/send-action";
import { CONFIRM_TIMEOUT_MS } from "@/components/actions/use-confirmation";
import { withBasePath } from "@/lib/http/base-path";

export type UpdateSendPhase =
  | { kind: "idle" }
  | { kind: "sending"; name: string }
  | {
      kind: "answered";
      name: string;
      outcome: UpdateOutcome;
      answer: UpdateActionAnswer | null;
      /** Null when nothing was recorded to confirm (an error before the server recorded an update). */
      confirmation: UpdateConfirmation | null;
      /** The last history read failed; reading goes on until the bound. */
      readError: string | null;
    };

export type UpdateForm = Pick<UpdateActionRequest, "updateName" | "input" | "waitFor">;

/** Posts to the guarded handler; an answer, or the handler's error envelope worded as an outcome. */
async function postUpdate(
  namespace: string,
  request: UpdateActionRequest,
  signal: AbortSignal,
): Promise<{ answer: UpdateActionAnswer | null; outcome: UpdateOutcome }> {
  let status = 0;
  let json: unknown = null;
  try {
    const response = await fetch(withBasePath("/api/actions/updates"), {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json", "x-namespace": namespace },
      body: JSON.stringify(request),
      signal,
    });
    status = response.status;
    json = await response.json().catch(() => null);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { answer: null, outcome: errorOutcome({ reason: "console_unreachable", message, httpStatus: null }) };
  }
  const answer = toUpdateActionAnswer(json);
  if (answer) return { answer, outcome: answerOutcome(answer) };
  const body = (typeof json === "object" && json !== null ? json : {}) as Record<string, unknown>;
  const reason = typeof body.reason === "string" ? body.reason : "malformed_response";
  const message = typeof body.message === "string" ? body.message : `HTTP ${status}`;
  const serverReason = typeof body.serverReason === "string" ? body.serverReason : null;
  return { answer: null, outcome: errorOutcome({ reason, serverReason, message, httpStatus: status }) };
}

/**
 * Sends an update through `POST /api/actions/updates`, then reads the run's history after
 * `afterSequence` until the events carrying its update id confirm what the server answered.
 */
export function useUpdateSend(namespace: string, workflowId: string, runId: string, afterSequence: number | null) {
  const queryClient = useQueryClient();
  const [phase, setPhase] = useState<UpdateSendPhase>({ kind: "idle" });
  const abort = useRef<AbortController | null>(null);
  useEffect(() => () => abort.current?.abort(), []);

  const send = useCallback(
    async (form: UpdateForm) => {
      abort.current?.abort();
      const controller = new AbortController();
      abort.current = controller;
      const { signal } = controller;
      const name = form.updateName;
      setPhase({ kind: "sending", name });
      const request = { ...form, workflowId, runId, requestId: newRequestId() };
      const { answer, outcome } = await postUpdate(namespace, request, signal);
      if (signal.aborted) return;
      const updateId = answer?.updateId ?? null;
      setPhase({ kind: "answered", name, outcome, answer, confirmation: null, readError: null });
      if (answer === null || updateId === null) return;
      const report = (confirmation: UpdateConfirmation, readError: string | null) =>
        setPhase({ kind: "answered", name, outcome, answer, confirmation, readError });
      const sent = { updateId, answeredStatus: answer.updateStatus };
      const began = Date.now();
      const evaluate = (events: readonly ObservedEvent[]) =>
        confirmUpdate(sent, events, { startedAt: began, now: Date.now(), timeoutMs: CONFIRM_TIMEOUT_MS });
      await followHistory({ namespace, workflowId, runId, afterSequence, signal, began }, evaluate, report);
      if (!signal.aborted) void invalidateAfterRunAction(queryClient, namespace, { workflowId, runId });
    },
    [namespace, workflowId, runId, afterSequence, queryClient],
  );

  return { phase, send };
}

interface Follow {
  namespace: string;
  workflowId: string;
  runId: string;
  afterSequence: number | null;
  signal: AbortSignal;
  /** When the answer came: the polling slows down from then. */
  began: number;
}

/** Reads every new history page, evaluates, reports, and waits (quickly at first) until settled. */
async function followHistory(
  target: Follow,
  evaluate: (events: readonly ObservedEvent[]) => UpdateConfirmation,
  report: (confirmation: UpdateConfirmation, readError: string | null) => void,
): Promise<void> {
  const client = browserDwClientFor(target.namespace);
  const { signal } = target;
  let cursor = target.afterSequence !== null ? historyTokenAfter(target.afterSequence) : null;
  let events: ObservedEvent[] = [];
  const began = target.began;
  while (!signal.aborted) {
    let readError: string | null = null;
    try {
      for (let pages = 0; pages < 20; pages += 1) {
        const page = await client.getHistory(
          target.workflowId,
          target.runId,
          { nextPageToken: cursor, pageSize: 500 },
          {
            signal,
          },
        );
        const read = page.events.map((e) => ({ sequence: e.sequence, event_type: e.event_type, payload: e.payload }));
        events = mergeEvents(events, read);
        cursor = historyResumeToken(page, cursor);
        if (page.next_page_token === null || page.next_page_token === undefined) break;
      }
    } catch (error) {
      if (signal.aborted) return;
      readError = error instanceof Error ? error.message : String(error);
    }
    const confirmation = evaluate(events);
    report(confirmation, readError);
    if (confirmation.phase !== "awaiting") return;
    await new Promise((resolve) => setTimeout(resolve, pollDelayMs(Date.now() - began)));
  }
}
