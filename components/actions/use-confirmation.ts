"use client";

import { useCallback, useEffect, useRef, useState } from "react";
import { historyResumeToken, historyTokenAfter } from "@/lib/dw/transport";
import type { AcceptedCommand, Confirmation, ObservedEvent, Observation } from "@/lib/confirm/confirm";
import { evaluateConfirmation, mergeEvents, openTaskIdsOf, pollDelayMs } from "@/lib/confirm/confirm";
import { browserDwClientFor } from "@/lib/dw/browser-client";

/** How long the console waits for a command's effect before saying what is still missing. */
export const CONFIRM_TIMEOUT_MS = 30_000;
/** After a repair is confirmed, the run is watched this long to show what it went on to do. */
const FOLLOW_UP_MS = 90_000;

export interface ConfirmTarget {
  command: AcceptedCommand;
  workflowId: string;
  runId: string;
  /** Last history sequence known before the command; events after it are read. */
  afterSequence: number | null;
  /** How long to wait before saying what is missing; {@link CONFIRM_TIMEOUT_MS} when absent. */
  timeoutMs?: number;
  /** `performance.now()` when the operator clicked, for the click-to-durable figure. */
  clickedAt: number;
}

export interface ConfirmState {
  target: ConfirmTarget;
  confirmation: Confirmation;
  /** Milliseconds from click to confirmed, once confirmed. */
  durableMs: number | null;
  /** Run status observed after confirmation (follow-up). */
  runStatus: string | null;
  livenessState: string | null;
  /** The last read failed; polling continues. */
  readError: string | null;
}

/**
 * Re-reads the run until the command's effect is durable (lib/confirm decides), then keeps
 * watching its status for a while. Reads go through the same-origin proxy.
 */
export function useConfirmation(namespace: string, onSettled?: () => void) {
  const browserDwClient = browserDwClientFor(namespace);
  const [state, setState] = useState<ConfirmState | null>(null);
  const abortRef = useRef<AbortController | null>(null);
  const settledRef = useRef(onSettled);
  useEffect(() => {
    settledRef.current = onSettled;
  }, [onSettled]);

  useEffect(() => () => abortRef.current?.abort(), []);

  const start = useCallback(
    (target: ConfirmTarget) => {
      abortRef.current?.abort();
      const controller = new AbortController();
      abortRef.current = controller;
      const { signal } = controller;
      const startedAt = Date.now();
      let events: ObservedEvent[] = [];
      let cursor: string | null = target.afterSequence !== null ? historyTokenAfter(target.afterSequence) : null;
      let durableMs: number | null = null;
      let confirmedAt: number | null = null;
      let confirmed: Confirmation | null = null;
      let closedSeen = false;

      const readHistory = async () => {
        // Drain every page after the cursor: the effect may sit behind other new events.
        for (let pages = 0; pages < 20; pages += 1) {
          const page = await browserDwClient.getHistory(
            target.workflowId,
            target.runId,
            { nextPageToken: cursor, pageSize: 500 },
            { signal },
          );
          events = mergeEvents(
            events,
            page.events.map((event) => ({
              sequence: event.sequence,
              event_type: event.event_type,
              payload: event.payload,
            })),
          );
          const hasMore = page.next_page_token !== null && page.next_page_token !== undefined;
          cursor = historyResumeToken(page, cursor);
          if (!hasMore) return;
        }
      };

      const observe = async (): Promise<Observation> => {
        if (target.command.action === "startAgain") {
          const run = await browserDwClient.describeRun(target.workflowId, target.runId, { signal });
          return { events: [], runExists: true, status: run.status, isTerminal: run.is_terminal };
        }
        await readHistory();
        const [run, debug] = await Promise.all([
          browserDwClient.describeRun(target.workflowId, target.runId, { signal }),
          browserDwClient.debugRun(target.workflowId, target.runId, {}, { signal }),
        ]);
        const archivedAt = typeof run.archived_at === "string" ? run.archived_at : null;
        return {
          events,
          status: run.status,
          isTerminal: run.is_terminal,
          livenessState: debug.execution.liveness_state ?? null,
          archived: archivedAt !== null || (run.is_terminal && run.actions.can_archive === false),
          openTaskIds: openTaskIdsOf(debug),
        };
      };

      const loop = async () => {
        while (!signal.aborted) {
          const now = Date.now();
          let observation: Observation | null = null;
          let readError: string | null = null;
          try {
            observation = await observe();
          } catch (error) {
            if (signal.aborted) return;
            readError = error instanceof Error ? error.message : String(error);
          }
          // Once confirmed, the steps stay as they were proven; later polls only follow the run.
          const confirmation =
            confirmed ??
            evaluateConfirmation(target.command, observation ?? { events }, {
              startedAt,
              now: Date.now(),
              timeoutMs: target.timeoutMs ?? CONFIRM_TIMEOUT_MS,
            });
          if (confirmation.phase === "confirmed" && durableMs === null) {
            durableMs = Math.round(performance.now() - target.clickedAt);
            confirmedAt = Date.now();
            confirmed = confirmation;
            settledRef.current?.();
          }
          // The run closing after a confirmed repair changes what every other panel shows: refresh them.
          if (confirmed && observation?.isTerminal === true && !closedSeen) {
            closedSeen = true;
            settledRef.current?.();
          }
          setState({
            target,
            confirmation,
            durableMs,
            runStatus: observation?.status ?? null,
            livenessState: observation?.livenessState ?? null,
            readError,
          });
          const followingUp =
            confirmation.phase === "confirmed" &&
            target.command.action === "repair" &&
            observation?.isTerminal !== true &&
            confirmedAt !== null &&
            now - confirmedAt < FOLLOW_UP_MS;
          if ((confirmation.phase !== "awaiting" && !followingUp) || signal.aborted) {
            if (confirmation.phase !== "confirmed") settledRef.current?.();
            return;
          }
          await new Promise((resolve) => setTimeout(resolve, followingUp ? 1_000 : pollDelayMs(now - startedAt)));
        }
      };
      void loop();
    },
    [browserDwClient],
  );

  const reset = useCallback(() => {
    abortRef.current?.abort();
    setState(null);
  }, []);

  return { state, start, reset };
}
