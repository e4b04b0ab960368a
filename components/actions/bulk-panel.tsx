"use client";

import type { ReactNode, Ref } from "react";
import Link from "@/components/ui/link";
import { Button } from "@/components/ui/button";
import type { BulkView } from "@/lib/confirm/bulk-runner";
import type { BulkTone } from "@/lib/views/bulk-panel";
import { firstInBucket, limitValues } from "@/lib/views/bulk-panel";
import { runHref } from "@/lib/routes/route-for";

/**
 * The pieces every bulk panel is drawn with (batch cancel/terminate and signal, bulk repair, start
 * again, Kikwiflow retry all): the frame with its title, limits and status region, the plan as bucket
 * lines or as one sentence with a list, the outcome's tally, and the send button. A panel passes its
 * own words; what to show is lib/views/bulk-panel.ts and the runner's stage (use-bulk-runner.ts).
 */

const TONE: Readonly<Record<BulkTone, string>> = {
  ok: "text-ok",
  warn: "text-warn",
  bad: "text-bad",
  muted: "text-fg-muted",
};

export function toneClass(tone: BulkTone | null): string | undefined {
  return tone ? TONE[tone] : undefined;
}

/** The runs list's panel is a section of its own (h2); a group's panel sits under the group (h4). */
type Place = "section" | "group";

/** The keys every bulk panel's catalog namespace has (runs.batch, attention.bulk, failures.bulk, kikwiflow.bulkRetry). */
export type BulkWordKey = "close" | "limits" | "planHeading" | "planExecuted" | "sending" | "tracking" | "trackingDone";
/** The panel's own `useTranslations(…)`: it only compiles here if its namespace has every {@link BulkWordKey}. */
export type BulkWords = (key: BulkWordKey, values?: Readonly<Record<string, number>>) => string;

export interface BulkPanelProps<Plan, Outcome> {
  testId: string;
  place: Place;
  view: BulkView<Plan, Outcome>;
  words: BulkWords;
  title: string;
  onClose: () => void;
  /** How long the flow tracks (its `trackForMs`), as the limits sentence states it. */
  trackForMs: number;
  /** The limits sentence's rule before it and capped note after it ({@link BulkLimits}). */
  limits?: { rule?: string; capped?: string | null; testId?: string };
  /** The dry run's read progress, while it reads. */
  reading?: (reads: { read: number; total: number }) => string;
  /** The plan under its heading (worded as sent once the sends began). */
  plan: (plan: Plan, heading: string) => ReactNode;
  /** With a bar label the sends also show as a bar. */
  progress?: { barLabel?: string; className?: string };
  /** The outcome, which ends with whether tracking goes on (`tracking`). */
  outcome: (outcome: Outcome, tracking: string) => ReactNode;
  /** Where the operator sends from, shown while the plan waits; `controlsFirst` puts it above the status. */
  controls: (plan: Plan) => ReactNode;
  controlsFirst?: boolean;
  /** Spacing between the status lines (the group panels that state their plan in one sentence). */
  statusClassName?: string;
  className?: string;
  ref?: Ref<HTMLDivElement>;
  /** Extra data attributes (the runs list names its action). */
  data?: Readonly<Record<`data-${string}`, string>>;
}

/** A bulk panel: title and Close, the limits, the live status (dry run, plan, sends, outcome), the controls. */
export function BulkPanel<Plan, Outcome>({ ref, ...props }: BulkPanelProps<Plan, Outcome>) {
  const { view, place, words, controlsFirst } = props;
  const planned = view.shown === "planned";
  const controls = planned && view.plan ? props.controls(view.plan) : null;
  const tracking = words(view.done ? "trackingDone" : "tracking", { checks: view.checks });
  const frame = `space-y-3 border border-line bg-panel-muted p-3 text-sm ${place === "section" ? "rounded-lg" : "rounded-md"}`;
  const body = (
    <>
      <BulkPanelHeader
        heading={place === "section" ? "h2" : "h4"}
        title={props.title}
        closeLabel={words("close")}
        onClose={props.onClose}
      />
      <BulkLimits {...props.limits} text={words("limits", limitValues(props.trackForMs))} />
      {controlsFirst ? controls : null}
      <div role="status" aria-live="polite" className={props.statusClassName}>
        {view.reads && props.reading ? <p>{props.reading(view.reads)}</p> : null}
        {view.plan ? props.plan(view.plan, words(planned ? "planHeading" : "planExecuted")) : null}
        {view.progress ? (
          <BulkProgress text={words("sending", view.progress)} progress={view.progress} {...props.progress} />
        ) : null}
        {view.outcome ? props.outcome(view.outcome, tracking) : null}
      </div>
      {controlsFirst ? null : controls}
    </>
  );
  const attributes = { ...props.data, "data-testid": props.testId, "data-stage": view.shown };
  const className = props.className ? `${props.className} ${frame}` : frame;
  if (place === "section")
    return (
      <section {...attributes} aria-label={props.title} className={className}>
        {body}
      </section>
    );
  return (
    <div {...attributes} ref={ref} className={className}>
      {body}
    </div>
  );
}

/** A bulk panel's title and its Close (which stops whatever the runner has in flight). */
export function BulkPanelHeader({
  heading: Heading,
  title,
  closeLabel,
  onClose,
}: {
  heading: "h2" | "h4";
  title: string;
  closeLabel: string;
  onClose: () => void;
}) {
  return (
    <div className="flex items-center justify-between">
      <Heading className="font-semibold">{title}</Heading>
      <Button variant="link" onClick={onClose} className="text-xs text-fg-muted underline">
        {closeLabel}
      </Button>
    </div>
  );
}

/** The bounds a panel keeps: its rule first if it has one, and the note on a group larger than one plan. */
export function BulkLimits({
  text,
  rule,
  capped,
  testId,
}: {
  text: string;
  rule?: string;
  capped?: string | null;
  testId?: string;
}) {
  return (
    <p data-testid={testId} className="text-xs text-fg-muted">
      {rule ? `${rule} ` : ""}
      {text}
      {capped ? ` ${capped}` : ""}
    </p>
  );
}

/** The sends so far, as text and (given a label) a bar. */
export function BulkProgress({
  progress,
  text,
  barLabel,
  className,
}: {
  progress: { sent: number; total: number };
  text: string;
  barLabel?: string;
  className?: string;
}) {
  return (
    <div data-testid="bulk-progress" className={className}>
      <p>{text}</p>
      {barLabel ? (
        <progress max={progress.total || 1} value={progress.sent} className="w-full" aria-label={barLabel} />
      ) : null}
    </div>
  );
}

export interface BucketLine {
  bucket: string;
  count: number;
  label: string;
  className?: string;
}

/** Runs named beside a plan line; the rest are only counted. */
const NAMED_RUNS = 3;

/** A run named on a bulk panel, by its workflow id, linked to its run page. */
export function BulkRunLink({ namespace, run }: { namespace: string; run: { workflowId: string; runId: string } }) {
  return (
    <Link href={runHref(namespace, run.workflowId, run.runId)} className="font-mono text-accent hover:underline">
      {run.workflowId}
    </Link>
  );
}

/** A dry run as one line per bucket: its count, its words, and its first runs linked. */
export function BulkPlanBuckets({
  testId,
  namespace,
  heading,
  lines,
  runs,
  namedLabel,
}: {
  testId: string;
  namespace: string;
  heading: string;
  lines: readonly BucketLine[];
  runs: readonly { bucket: string; workflowId: string; runId: string }[];
  /** Said before the named runs ("e.g."). */
  namedLabel?: string;
}) {
  return (
    <div data-testid={testId}>
      <p className="font-medium">{heading}</p>
      <ul className="mt-1 space-y-1">
        {lines.map((line) => {
          const named = firstInBucket(runs, line.bucket, NAMED_RUNS);
          return (
            <li key={line.bucket} data-bucket={line.bucket} data-count={line.count} className={line.className}>
              <span className="font-medium tabular-nums">{line.count}</span> {line.label}
              {named.length ? (
                <span className="ml-2 text-xs text-fg-muted">
                  {namedLabel ? `${namedLabel} ` : ""}
                  {named.map((run, index) => (
                    <span key={run.runId}>
                      {index > 0 ? ", " : ""}
                      <BulkRunLink namespace={namespace} run={run} />
                    </span>
                  ))}
                </span>
              ) : null}
            </li>
          );
        })}
      </ul>
    </div>
  );
}

/** A dry run as one sentence (what is sent, what is skipped) over a list of the items it names. */
export function BulkPlanSentence({
  parts,
  data,
  list,
  className,
}: {
  /** The heading and each stated bucket, joined by spaces. */
  parts: readonly string[];
  /** The sentence's test id and counts. */
  data: Readonly<Record<`data-${string}`, string | number>>;
  /** The named items; null hides the list. */
  list: {
    className: string;
    testId?: string;
    items: readonly { key: string; content: ReactNode; className: string }[];
  } | null;
  className?: string;
}) {
  return (
    <div className={className}>
      <p {...data} className="font-medium">
        {parts.join(" ")}
      </p>
      {list ? (
        <ul className={list.className} data-testid={list.testId}>
          {list.items.map((item) => (
            <li key={item.key} className={item.className}>
              {item.content}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

/** What the sends did: the tally, the refusals if any, the panel's own lines, and whether tracking goes on. */
export function BulkOutcome({
  data,
  className,
  tally,
  refused,
  tracking,
  children,
}: {
  data: Readonly<Record<`data-${string}`, string | number | boolean>>;
  className: string;
  tally: string;
  refused?: string | null;
  tracking: string;
  children?: ReactNode;
}) {
  return (
    <div {...data} className={className}>
      <p className="font-medium">{tally}</p>
      {refused ? <p className="text-bad">{refused}</p> : null}
      {children}
      <p className="text-xs text-fg-muted">{tracking}</p>
    </div>
  );
}

/** The failure categories of the items that failed again, after the panel's label; nothing when none did. */
export function BulkFailedBy({ label, categories }: { label: string; categories: string | null }) {
  return categories ? (
    <p className="text-bad">
      {label} {categories}
    </p>
  ) : null;
}

/** A required text field of a bulk panel's form (the reason, the signal name). */
export function BulkInput({
  label,
  testId,
  value,
  onChange,
  maxLength,
  className,
}: {
  label: string;
  testId: string;
  value: string;
  onChange: (value: string) => void;
  maxLength: number;
  /** Its width (and font). */
  className: string;
}) {
  return (
    <label className="flex flex-col text-xs text-fg-muted">
      {label}
      <input
        required
        value={value}
        onChange={(event) => onChange(event.target.value)}
        maxLength={maxLength}
        className={`mt-1 h-8 rounded-md border border-line bg-panel px-2 text-sm text-fg ${className}`}
        data-testid={testId}
      />
    </label>
  );
}

/** A group panel's send row: the button, refused while the person may not act or nothing is to be sent. */
export function BulkGroupSend({
  label,
  count,
  canAct,
  disabledReason,
  onSend,
}: {
  label: string;
  count: number;
  canAct: boolean;
  disabledReason: string | null;
  onSend: () => void;
}) {
  return (
    <div className="flex items-center gap-3">
      <BulkSend
        testId="bulk-execute"
        label={label}
        disabled={!canAct || count === 0}
        onSend={onSend}
        refusal={canAct ? null : disabledReason}
      />
    </div>
  );
}

/** What a group's screen gives its bulk panel (repair, start again). */
export interface GroupBulkProps {
  namespace: string;
  members: readonly { workflowId: string; runId: string }[];
  canAct: boolean;
  disabledReason: string | null;
  onClose: () => void;
}

/** The send button and, when the person may not send, why not. */
export function BulkSend({
  testId,
  label,
  disabled,
  onSend,
  refusal,
  refusalTestId,
}: {
  testId: string;
  label: string;
  disabled: boolean;
  /** Without it the button submits the panel's form. */
  onSend?: () => void;
  refusal: string | null;
  refusalTestId?: string;
}) {
  return (
    <>
      <Button
        type={onSend ? "button" : "submit"}
        variant="primary"
        data-testid={testId}
        disabled={disabled}
        onClick={onSend}
      >
        {label}
      </Button>
      {refusal ? (
        <span className="text-xs text-fg-muted" data-testid={refusalTestId}>
          {refusal}
        </span>
      ) : null}
    </>
  );
}
