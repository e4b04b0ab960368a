"use client";

import { useCallback, useEffect, useLayoutEffect, useRef, useState } from "react";
import { useQueryClient } from "@tanstack/react-query";
import { mapBounded } from "@/lib/confirm/map-bounded";
import { BULK_READ_CONCURRENCY, BULK_SEND_CONCURRENCY, BULK_TRACK_INTERVAL_MS } from "@/lib/confirm/bulk-limits";
import type { BulkEvent, BulkSent, BulkStage } from "@/lib/confirm/bulk-runner";
import { bulkStep, bulkView, sendResults } from "@/lib/confirm/bulk-runner";
import type { SendResult } from "@/lib/confirm/bulk";
import { invalidateAfterBulkRepair } from "@/lib/queries/invalidate";
import type { SendOutcome } from "@/components/actions/send-action";

interface RunRef {
  workflowId: string;
  runId: string;
}

/** What one bulk flow is; everything else (stages, bounds, progress, invalidation) is the runner's. */
export interface BulkFlow<Target, Read, Plan, Item, Input, Sent extends BulkSent, Follow, Outcome> {
  /** The dry run's read of one target (must not throw); without it the plan is made at once. */
  read?: (target: Target, signal: AbortSignal) => Promise<Read>;
  /** The plan from the reads (index-aligned with the targets). A new function re-plans a shown plan. */
  plan: (targets: readonly Target[], reads: readonly Read[]) => Plan;
  /** The items the plan sends to. */
  sendTo: (plan: Plan, reads: readonly Read[]) => readonly Item[];
  /** One command (must not throw), with what the operator gave at send time (a reason, signal args). */
  send: (item: Item, input: Input, signal: AbortSignal) => Promise<Sent>;
  /** One accepted item re-read from the server; null while it cannot be read. */
  follow: (item: Item, sent: Sent, signal: AbortSignal) => Promise<Follow | null>;
  outcome: (plan: Plan, sends: readonly SendResult[], follows: readonly (Follow | null)[]) => Outcome;
  /** Every accepted item's effect is confirmed: nothing more to wait for. */
  settled: (outcome: Outcome) => boolean;
  trackForMs: number;
  /** The runs the lists and the inbox re-read once tracking ends. */
  touched: (items: readonly Item[], results: readonly (Sent | null)[]) => readonly RunRef[];
}

/**
 * Drives {@link bulkStep} for one flow: the dry-run reads when the targets change, `execute` for the
 * sends and the tracking loop, and an abort of whatever is in flight when the panel closes. The flow's
 * functions are read at the moment they are needed; a new `plan` function re-plans a shown plan (the
 * signal flow's plan follows the typed name), so the others keep theirs stable (useMemo). `view` is
 * what a panel shows of the stage (`bulkView`).
 */
export function useBulkRunner<Target, Read, Plan, Item, Input, Sent extends BulkSent, Follow, Outcome>(
  namespace: string,
  targets: readonly Target[],
  flow: BulkFlow<Target, Read, Plan, Item, Input, Sent, Follow, Outcome>,
) {
  type Stage = BulkStage<Plan, Sent, Outcome>;
  const queryClient = useQueryClient();
  const flowRef = useRef(flow);
  // The latest flow for the async loops; set before any effect or event below reads it.
  useLayoutEffect(() => {
    flowRef.current = flow;
  });
  // The first render already shows the dry run (or, without reads, the plan), as the panels always did.
  const [stage, setStage] = useState<Stage>(() =>
    flow.read
      ? { kind: "planning", read: 0, total: targets.length }
      : { kind: "planned", plan: flow.plan(targets, []) },
  );
  const stageRef = useRef<Stage>(stage);
  const [reads, setReads] = useState<readonly Read[]>([]);
  const readsRef = useRef<readonly Read[]>([]);
  const abortRef = useRef(new AbortController());

  const dispatch = useCallback((event: BulkEvent<Plan, Sent, Outcome>): Stage => {
    stageRef.current = bulkStep(stageRef.current, event);
    setStage(stageRef.current);
    return stageRef.current;
  }, []);

  useEffect(() => {
    const controller = new AbortController();
    abortRef.current = controller;
    const { read, plan } = flowRef.current;
    // Already planning (or planned) on the first render; after a cancel (new targets, a re-mount) again.
    dispatch({ type: "plan", total: targets.length });
    if (read) void dryRun(read, controller.signal);
    else dispatch({ type: "planned", plan: plan(targets, []) });
    return () => {
      controller.abort();
      dispatch({ type: "cancel" });
    };

    async function dryRun(readOne: (target: Target, signal: AbortSignal) => Promise<Read>, signal: AbortSignal) {
      const done = await mapBounded(
        targets,
        BULK_READ_CONCURRENCY,
        (target) => readOne(target, signal),
        (count) => dispatch({ type: "read", done: count }),
        signal,
      );
      if (signal.aborted) return;
      // read never throws, so every entry is there once the walk was not aborted.
      readsRef.current = done as Read[];
      setReads(readsRef.current);
      dispatch({ type: "planned", plan: flowRef.current.plan(targets, readsRef.current) });
    }
  }, [namespace, targets, dispatch]);

  // A new plan function (the flow's inputs changed) re-makes the plan shown before sending.
  const planFn = flow.plan;
  const lastPlanFn = useRef(planFn);
  useEffect(() => {
    if (lastPlanFn.current === planFn) return;
    lastPlanFn.current = planFn;
    dispatch({ type: "replan", plan: planFn(targets, readsRef.current) });
  }, [planFn, targets, dispatch]);

  const execute = useCallback(
    async (input: Input) => {
      const current = stageRef.current;
      if (current.kind !== "planned") return;
      const { signal } = abortRef.current;
      const items = flowRef.current.sendTo(current.plan, readsRef.current);
      dispatch({ type: "send", total: items.length });
      const sends = await mapBounded(
        items,
        BULK_SEND_CONCURRENCY,
        async (item, index) => {
          const sent = await flowRef.current.send(item, input, signal);
          dispatch({ type: "sent", index, sent });
          return sent;
        },
        undefined,
        signal,
      );
      const results = sends.map((sent) => sent ?? null);
      dispatch({ type: "sendsDone", now: Date.now(), trackForMs: flowRef.current.trackForMs });
      while (!signal.aborted) {
        const follows = await mapBounded(
          items,
          BULK_READ_CONCURRENCY,
          (item, index) => {
            const sent = results[index];
            return sent?.result.kind === "accepted"
              ? flowRef.current.follow(item, sent, signal)
              : Promise.resolve(null);
          },
          undefined,
          signal,
        );
        if (signal.aborted) return;
        const { outcome: tally, settled } = flowRef.current;
        const outcome = tally(
          current.plan,
          sendResults(results),
          follows.map((entry) => entry ?? null),
        );
        const next = dispatch({ type: "checked", outcome, settled: settled(outcome), now: Date.now() });
        // The touched runs, the lists and the inbox re-read once the commands settled (or tracking gave up).
        if (next.kind === "done")
          return void invalidateAfterBulkRepair(queryClient, namespace, flowRef.current.touched(items, results));
        await new Promise((resolve) => setTimeout(resolve, BULK_TRACK_INTERVAL_MS));
      }
    },
    [dispatch, namespace, queryClient],
  );

  return { stage, view: bulkView(stage), reads, execute };
}

/** The send result of one run action answer, as every flow tallies it. */
export function toSendResult(sent: SendOutcome): SendResult {
  if (!sent.ok) return { kind: "error", reason: sent.error.reason };
  return sent.answer.result === "accepted"
    ? { kind: "accepted", outcome: sent.answer.outcome }
    : { kind: "rejected", reason: sent.answer.rejectionReason ?? sent.answer.outcome };
}
