"use client";

import { useCallback, useMemo, useState } from "react";
import { useTranslations } from "next-intl";
import type { BulkSent } from "@/lib/confirm/bulk-runner";
import type { ObservedEvent } from "@/lib/confirm/confirm";
import { mergeEvents } from "@/lib/confirm/confirm";
import { parseSignalInput } from "@/lib/actions/contract";
import type { SignalBatchOutcome, SignalFollowUpRead, SignalPlan, SignalRunInput } from "@/lib/views/run-batch-signal";
import {
  SIGNAL_BUCKETS,
  batchAwaitedNames,
  isSignalSend,
  recordedSignalSequence,
  runAwaitedNames,
  signalBatchOutcome,
  signalBatchPlan,
} from "@/lib/views/run-batch-signal";
import { closestName } from "@/lib/views/signal-names";
import { browserDwClientFor } from "@/lib/dw/browser-client";
import { historyResumeToken } from "@/lib/dw/transport";
import { newRequestId, sendRunAction } from "@/components/actions/send-action";
import type { BulkFlow } from "@/components/actions/use-bulk-runner";
import { toSendResult, useBulkRunner } from "@/components/actions/use-bulk-runner";
import { Button } from "@/components/ui/button";
import { BulkInput, BulkPanel, BulkPlanBuckets, BulkSend, toneClass } from "@/components/actions/bulk-panel";
import { afterTone, shownBuckets } from "@/lib/views/bulk-panel";
import type { RunsBatchProps } from "@/components/run-list/runs-batch-parts";
import { BATCH_TRACK_FOR_MS, BatchOutcomeFrame } from "@/components/run-list/runs-batch-parts";
import type { BatchTarget } from "@/components/run-list/runs-batch";

/** History pages (of 1000) one run's dry-run read walks at most; a longer run is planned from what was read. */
const HISTORY_PAGES = 20;

type Client = ReturnType<typeof browserDwClientFor>;

/** A run as read: the dry-run facts and the events read so far (tracking reads on from the last one). */
interface RunRead {
  input: SignalRunInput;
  events: ObservedEvent[];
  cursor: string | null;
}

/** Reads the run's history on from `read.cursor`, merging into `read.events`. */
async function readOn(client: Client, run: BatchTarget, read: Pick<RunRead, "events" | "cursor">, signal: AbortSignal) {
  let { events, cursor } = read;
  for (let pages = 0; pages < HISTORY_PAGES; pages++) {
    const page = await client.getHistory(
      run.workflowId,
      run.runId,
      { nextPageToken: cursor, pageSize: 1000 },
      { signal },
    );
    events = mergeEvents(
      events,
      page.events.map((event) => ({ sequence: event.sequence, event_type: event.event_type, payload: event.payload })),
    );
    const more = page.next_page_token !== null && page.next_page_token !== undefined;
    cursor = historyResumeToken(page, cursor);
    if (!more) break;
  }
  return { events, cursor };
}

async function readRun(client: Client, run: BatchTarget, signal: AbortSignal): Promise<RunRead> {
  try {
    const [described, history] = await Promise.all([
      client.describeRun(run.workflowId, run.runId, { signal }),
      readOn(client, run, { events: [], cursor: null }, signal),
    ]);
    const awaited = runAwaitedNames(history.events, described.wait_reason);
    const read = { isTerminal: described.is_terminal, canSignal: described.actions.can_signal, awaited };
    return { input: { ...run, read }, ...history };
  } catch {
    return { input: { ...run, read: null }, events: [], cursor: null };
  }
}

/** A signal's result and its command id, which the SignalReceived that records it carries. */
interface SignalSent extends BulkSent {
  commandId: string | null;
}

/** What the operator gave at send time: the name of the frozen plan and the parsed arguments. */
interface SignalInput {
  name: string;
  args: unknown[];
}

type SignalFlow = BulkFlow<
  BatchTarget,
  RunRead,
  SignalPlan,
  RunRead,
  SignalInput,
  SignalSent,
  SignalFollowUpRead,
  SignalBatchOutcome
>;

/** Everything but the plan, which follows the typed name. */
function signalFlow(namespace: string, plan: SignalFlow["plan"]): SignalFlow {
  const client = browserDwClientFor(namespace);
  return {
    read: (run, signal) => readRun(client, run, signal),
    plan,
    sendTo: (planned, reads) =>
      reads.filter((_, index) => isSignalSend(planned.runs[index]?.bucket ?? "skip_unreadable")),
    send: async (run, { name, args }, signal) => {
      const { workflowId, runId } = run.input;
      const request = { action: "signal" as const, workflowId, runId, signalName: name, input: args };
      const sent = await sendRunAction(namespace, { ...request, requestId: newRequestId() }, signal);
      const accepted = sent.ok && sent.answer.result === "accepted";
      return { result: toSendResult(sent), commandId: accepted ? sent.answer.commandId : null };
    },
    follow: async (run, sent, signal) => {
      const next = await readOn(client, run.input, run, signal).catch(() => null);
      if (!next) return null;
      Object.assign(run, next); // the next check reads on from here
      const recorded = recordedSignalSequence(sent.commandId, run.events) !== null;
      return { recorded, awaited: recorded ? runAwaitedNames(run.events, null) : [] };
    },
    outcome: (planned, sends, follows) => signalBatchOutcome(planned.name, sends, follows),
    settled: (outcome) => outcome.settled,
    trackForMs: BATCH_TRACK_FOR_MS,
    touched: (runs) => runs.map((run) => run.input),
  };
}

/**
 * Signal the selected runs, in the stages batch cancel/terminate has: a dry run (describe and history
 * of each run, nothing sent) that says per run whether it awaits the typed name, the signals with a
 * request id each and bounded concurrency, then each run's history re-read until its SignalReceived
 * is there, and whether the run still awaits the name.
 */
export function RunsBatchSignal({ namespace, targets, canAct, disabledReason, onClose }: RunsBatchProps) {
  const t = useTranslations("runs.batch");
  const [name, setName] = useState("");
  const [args, setArgs] = useState("");
  const planFor = useCallback(
    (_targets: readonly BatchTarget[], reads: readonly RunRead[]) =>
      signalBatchPlan(
        name,
        reads.map((read) => read.input),
      ),
    [name],
  );
  const flow = useMemo(() => signalFlow(namespace, planFor), [namespace, planFor]);
  const { view, reads, execute } = useBulkRunner(namespace, targets, flow);
  const inputs = useMemo(() => reads.map((read) => read.input), [reads]);
  const offered = useMemo(() => batchAwaitedNames(inputs), [inputs]);
  const parsedArgs = parseSignalInput(args);
  return (
    <BulkPanel
      testId="runs-batch"
      data={{ "data-action": "signal" }}
      place="section"
      view={view}
      words={t}
      title={t("title.signal")}
      onClose={onClose}
      trackForMs={BATCH_TRACK_FOR_MS}
      reading={(reads) => t("planning", reads)}
      plan={(plan, heading) =>
        plan.name !== "" ? (
          <BulkPlanBuckets
            testId="runs-batch-plan"
            namespace={namespace}
            heading={heading}
            runs={plan.runs}
            lines={shownBuckets(SIGNAL_BUCKETS, plan.counts).map((bucket) => ({
              bucket,
              count: plan.counts[bucket],
              label: t(`signal.bucket.${bucket}`, { name: plan.name }),
              className: bucket === "unawaited" ? "text-warn" : undefined,
            }))}
          />
        ) : null
      }
      outcome={(outcome) =>
        view.plan ? <SignalOutcomeView outcome={outcome} name={view.plan.name} done={view.done} /> : null
      }
      controlsFirst
      controls={(plan) => {
        const closest =
          plan.counts.unawaited > 0 && name.trim() !== ""
            ? closestName(
                name.trim(),
                offered.map((o) => o.name),
              )
            : null;
        return (
          <form
            className="space-y-2"
            onSubmit={(event) => {
              event.preventDefault();
              if (parsedArgs.ok) void execute({ name: plan.name, args: parsedArgs.value });
            }}
          >
            <div className="flex flex-wrap items-start gap-3">
              <BulkInput
                label={t("signal.name")}
                testId="runs-batch-signal-name"
                value={name}
                onChange={setName}
                maxLength={255}
                className="w-64 font-mono"
              />
              <label className="flex flex-col text-xs text-fg-muted">
                {t("signal.args")}
                <textarea
                  value={args}
                  onChange={(event) => setArgs(event.target.value)}
                  rows={2}
                  aria-invalid={!parsedArgs.ok}
                  aria-describedby="runs-batch-signal-args-hint"
                  className="mt-1 w-80 rounded-md border border-line bg-panel px-2 py-1 font-mono text-sm text-fg"
                  data-testid="runs-batch-signal-args"
                />
                <span id="runs-batch-signal-args-hint" className={parsedArgs.ok ? "mt-1" : "mt-1 text-bad"}>
                  {parsedArgs.ok ? t("signal.argsHint") : t(`signal.argsProblem.${parsedArgs.problem}`)}
                </span>
              </label>
            </div>
            {offered.length > 0 ? (
              <div className="flex flex-wrap items-center gap-1.5" data-testid="runs-batch-signal-offers">
                <span className="text-xs text-fg-muted">{t("signal.offered")}</span>
                {offered.map((offer) => (
                  <Button
                    key={offer.name}
                    size="xs"
                    pressed={name.trim() === offer.name}
                    onClick={() => setName(offer.name)}
                    className="font-mono"
                  >
                    {t("signal.offer", { name: offer.name, runs: offer.runs })}
                  </Button>
                ))}
              </div>
            ) : (
              <p className="text-xs text-fg-muted">{t("signal.noneOffered")}</p>
            )}
            {closest ? (
              <p
                role="alert"
                data-testid="runs-batch-signal-warning"
                className="flex flex-wrap items-center gap-2 text-warn"
              >
                <span>
                  <span aria-hidden="true">⚠ </span>
                  {t("signal.warning", { count: plan.counts.unawaited, name: name.trim() })}
                </span>
                <Button size="xs" variant="primary" onClick={() => setName(closest)}>
                  {t("signal.useClosest", { closest })}
                </Button>
              </p>
            ) : null}
            <div className="flex flex-wrap items-center gap-3">
              <BulkSend
                testId="runs-batch-execute"
                label={t("execute.signal", { count: plan.sendCount })}
                disabled={!canAct || plan.sendCount === 0 || name.trim() === "" || !parsedArgs.ok}
                refusal={canAct ? null : disabledReason}
              />
            </div>
          </form>
        );
      }}
    />
  );
}

function SignalOutcomeView({ outcome, name, done }: { outcome: SignalBatchOutcome; name: string; done: boolean }) {
  const t = useTranslations("runs.batch");
  return (
    <BatchOutcomeFrame outcome={outcome} done={done}>
      <p data-testid="runs-batch-signal-recorded" className={toneClass(afterTone(outcome, false))}>
        {t("signal.recorded", { done: outcome.recordedDone, pending: outcome.pending, name })}
      </p>
      {outcome.recordedStillWaiting > 0 ? (
        <p data-testid="runs-batch-signal-still-waiting" className="text-warn">
          {t("signal.stillWaiting", { count: outcome.recordedStillWaiting, name })}
        </p>
      ) : null}
    </BatchOutcomeFrame>
  );
}
