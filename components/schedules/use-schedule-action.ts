"use client";

import { useCallback, useState } from "react";
import { useQueryClient } from "@tanstack/react-query";
import type { ScheduleActionAnswer, ScheduleActionRequest } from "@/lib/actions/schedule-commands";
import type { ActionError } from "@/lib/actions/contract";
import { browserDwClientFor } from "@/lib/dw/browser-client";
import { isDwError } from "@/lib/dw/errors";
import type { ScheduleDescription } from "@/lib/dw/schemas-schedules";
import type { ScheduleConfirmation } from "@/lib/confirm/schedule-confirm";
import { confirmScheduleAction } from "@/lib/confirm/schedule-confirm";
import { readScheduleHistory } from "@/lib/queries/schedules";
import { namespaceKey } from "@/lib/queries/keys";
import { toActionError } from "@/components/actions/send-action";
import { withBasePath } from "@/lib/http/base-path";

/** How long the console re-reads before it says the effect is not visible yet. */
const CONFIRM_TIMEOUT_MS = 15_000;
const CONFIRM_EVERY_MS = 400;

export type ScheduleActionState =
  | { phase: "idle" }
  | { phase: "sending"; action: ScheduleActionRequest["action"] }
  | { phase: "error"; action: ScheduleActionRequest["action"]; error: ActionError }
  | { phase: "rejected"; answer: ScheduleActionAnswer }
  | { phase: "confirming"; answer: ScheduleActionAnswer }
  | { phase: "done"; answer: ScheduleActionAnswer; confirmation: ScheduleConfirmation }
  | { phase: "timed_out"; answer: ScheduleActionAnswer; waitingFor: string };

function isAnswer(json: unknown): json is ScheduleActionAnswer {
  if (typeof json !== "object" || json === null) return false;
  const { result, action, scheduleId } = json as Record<string, unknown>;
  return (
    (result === "accepted" || result === "rejected") && typeof action === "string" && typeof scheduleId === "string"
  );
}

async function post(namespace: string, request: ScheduleActionRequest): Promise<ScheduleActionAnswer | ActionError> {
  try {
    const response = await fetch(withBasePath("/api/actions/schedules"), {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json", "x-namespace": namespace },
      body: JSON.stringify(request),
    });
    const json: unknown = await response.json().catch(() => null);
    if (isAnswer(json)) return json;
    return (
      toActionError(json) ?? {
        reason: "malformed_response",
        message: `HTTP ${response.status}`,
        httpStatus: response.status,
      }
    );
  } catch (error) {
    return {
      reason: "console_unreachable",
      message: error instanceof Error ? error.message : String(error),
      httpStatus: null,
    };
  }
}

async function describeOrGone(namespace: string, scheduleId: string): Promise<ScheduleDescription | null> {
  try {
    return await browserDwClientFor(namespace).read("describeSchedule", { scheduleId });
  } catch (error) {
    if (isDwError(error) && error.httpStatus === 404) return null;
    throw error;
  }
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Sends one schedule action and confirms it from durable state: the audit's last sequence is read
 * first, then the schedule and the events after that sequence are re-read until the effect shows
 * (lib/confirm/schedule-confirm.ts) or {@link CONFIRM_TIMEOUT_MS} passes.
 */
export function useScheduleAction(namespace: string, scheduleId: string) {
  const [state, setState] = useState<ScheduleActionState>({ phase: "idle" });
  const queryClient = useQueryClient();

  const run = useCallback(
    async (request: ScheduleActionRequest) => {
      setState({ phase: "sending", action: request.action });
      let baseline = 0;
      try {
        baseline = (await readScheduleHistory(namespace, scheduleId, 0, 1)).lastSequence;
      } catch {
        // Without a baseline every event counts; a fresh event is still required, so nothing is claimed early.
      }
      const answer = await post(namespace, request);
      if (!("result" in answer)) return setState({ phase: "error", action: request.action, error: answer });
      if (answer.result === "rejected") return setState({ phase: "rejected", answer });
      setState({ phase: "confirming", answer });
      const started = Date.now();
      let waitingFor = "";
      while (Date.now() - started < CONFIRM_TIMEOUT_MS) {
        try {
          const [detail, audit] = await Promise.all([
            describeOrGone(namespace, scheduleId),
            readScheduleHistory(namespace, scheduleId, baseline, 500),
          ]);
          const confirmation = confirmScheduleAction(answer, { detail, events: audit.events });
          if (confirmation.phase !== "awaiting") {
            await queryClient.invalidateQueries({ queryKey: namespaceKey(namespace, "schedules") });
            await queryClient.invalidateQueries({ queryKey: namespaceKey(namespace, "schedule", scheduleId) });
            return setState({ phase: "done", answer, confirmation });
          }
          waitingFor = confirmation.waitingFor;
        } catch {
          // A failed re-read is retried until the deadline.
        }
        await pause(CONFIRM_EVERY_MS);
      }
      setState({ phase: "timed_out", answer, waitingFor });
    },
    [namespace, scheduleId, queryClient],
  );

  return { state, run, reset: () => setState({ phase: "idle" }) };
}
