"use client";

import { useCallback, useMemo, useState } from "react";
import { useTranslations } from "next-intl";
import type { BulkSent } from "@/lib/confirm/bulk-runner";
import { bulkView } from "@/lib/confirm/bulk-runner";
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
import { BulkPanelHeader } from "@/components/actions/bulk-panel";
import { BATCH_TRACK_FOR_MS, BatchLimits, BatchPlanList, SendTally } from "@/components/run-list/batch-plan-list";
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
export function RunsBatchSignal({
  namespace,
  targets,
  canAct,
  disabledReason,
  onClose,
}: {
  namespace: string;
  targets: readonly BatchTarget[];
  canAct: boolean;
  disabledReason: string | null;
  onClose: () => void;
}) {
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
  const { stage, reads, execute } = useBulkRunner(namespace, targets, flow);
  const view = bulkView(stage);
  const inputs = useMemo(() => reads.map((read) => read.input), [reads]);
  const offered = useMemo(() => batchAwaitedNames(inputs), [inputs]);
  const parsedArgs = parseSignalInput(args);
  const plan = view.plan;
  const closest =
    stage.kind === "planned" && stage.plan.counts.unawaited > 0 && name.trim() !== ""
      ? closestName(
          name.trim(),
          offered.map((o) => o.name),
        )
      : null;
  return (
    <section
      data-testid="runs-batch"
      data-action="signal"
      data-stage={view.shown}
      aria-label={t("title.signal")}
      className="space-y-3 rounded-lg border border-line bg-panel-muted p-3 text-sm"
    >
      <BulkPanelHeader heading="h2" title={t("title.signal")} closeLabel={t("close")} onClose={onClose} />
      <BatchLimits />
      {stage.kind === "planned" ? (
        <form
          className="space-y-2"
          onSubmit={(event) => {
            event.preventDefault();
            if (parsedArgs.ok) void execute({ name: stage.plan.name, args: parsedArgs.value });
          }}
        >
          <div className="flex flex-wrap items-start gap-3">
            <label className="flex flex-col text-xs text-fg-muted">
              {t("signal.name")}
              <input
                required
                value={name}
                onChange={(event) => setName(event.target.value)}
                maxLength={255}
                className="mt-1 h-8 w-64 rounded-md border border-line bg-panel px-2 font-mono text-sm text-fg"
                data-testid="runs-batch-signal-name"
              />
            </label>
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
                {t("signal.warning", { count: stage.plan.counts.unawaited, name: name.trim() })}
              </span>
              <Button size="xs" variant="primary" onClick={() => setName(closest)}>
                {t("signal.useClosest", { closest })}
              </Button>
            </p>
          ) : null}
          <div className="flex flex-wrap items-center gap-3">
            <Button
              type="submit"
              variant="primary"
              data-testid="runs-batch-execute"
              disabled={!canAct || stage.plan.sendCount === 0 || name.trim() === "" || !parsedArgs.ok}
            >
              {t("execute.signal", { count: stage.plan.sendCount })}
            </Button>
            {!canAct && disabledReason ? <span className="text-xs text-fg-muted">{disabledReason}</span> : null}
          </div>
        </form>
      ) : null}
      <div role="status" aria-live="polite">
        {view.reads ? <p>{t("planning", view.reads)}</p> : null}
        {plan && plan.name !== "" ? (
          <SignalPlanView namespace={namespace} plan={plan} executed={stage.kind !== "planned"} />
        ) : null}
        {view.progress ? <p>{t("sending", view.progress)}</p> : null}
        {plan && view.outcome ? <SignalOutcomeView outcome={view.outcome} name={plan.name} done={view.done} /> : null}
      </div>
    </section>
  );
}

function SignalPlanView({ namespace, plan, executed }: { namespace: string; plan: SignalPlan; executed: boolean }) {
  const t = useTranslations("runs.batch");
  const rows = SIGNAL_BUCKETS.filter((bucket) => plan.counts[bucket] > 0).map((bucket) => ({
    bucket,
    count: plan.counts[bucket],
    label: t(`signal.bucket.${bucket}`, { name: plan.name }),
    className: bucket === "unawaited" ? "text-warn" : undefined,
  }));
  return <BatchPlanList namespace={namespace} executed={executed} rows={rows} runs={plan.runs} />;
}

function SignalOutcomeView({ outcome, name, done }: { outcome: SignalBatchOutcome; name: string; done: boolean }) {
  const t = useTranslations("runs.batch");
  return (
    <div data-testid="runs-batch-outcome" data-settled={outcome.settled} className="mt-2 space-y-1">
      <SendTally outcome={outcome} />
      <p data-testid="runs-batch-signal-recorded" className={outcome.settled ? "text-ok" : undefined}>
        {t("signal.recorded", { done: outcome.recordedDone, pending: outcome.pending, name })}
      </p>
      {outcome.recordedStillWaiting > 0 ? (
        <p data-testid="runs-batch-signal-still-waiting" className="text-warn">
          {t("signal.stillWaiting", { count: outcome.recordedStillWaiting, name })}
        </p>
      ) : null}
      <p className="text-xs text-fg-muted">{done ? t("trackingDone") : t("tracking")}</p>
    </div>
  );
}
