import type { SendResult } from "./bulk";

/**
 * The stage machine every bulk flow shares (batch cancel/terminate, batch signal, bulk repair, bulk
 * start-again): a dry run that reads each item (nothing sent), the plan (which a flow may re-make
 * while it is shown, e.g. as a signal name is typed), the sends with bounded concurrency and a result
 * per item, then tracking: re-reads until every accepted item's effect is confirmed or the time bound
 * passed. What a plan, a send and a confirmed effect are is the flow's (use-bulk-runner.ts). Pure.
 */

/** One item's send as the flow keeps it: the server's result plus whatever the flow tracks by. */
export interface BulkSent {
  result: SendResult;
}

export type BulkStage<Plan, Sent extends BulkSent, Outcome> =
  | { kind: "idle" }
  | { kind: "planning"; read: number; total: number }
  | { kind: "planned"; plan: Plan }
  | { kind: "sending"; plan: Plan; sent: number; total: number; results: readonly (Sent | null)[] }
  | {
      kind: "tracking";
      plan: Plan;
      /** Per sent item; null where the send never ran (stopped mid-send). */
      results: readonly (Sent | null)[];
      /** null until the first check came back. */
      outcome: Outcome | null;
      checks: number;
      /** Tracking gives up at this time (ms since the epoch). */
      until: number;
    }
  | {
      kind: "done";
      plan: Plan;
      results: readonly (Sent | null)[];
      outcome: Outcome;
      checks: number;
      /** Every accepted item confirmed, or the bound passed with some still unconfirmed. */
      why: "settled" | "bound";
    }
  | { kind: "cancelled"; from: "idle" | "planning" | "planned" | "sending" | "tracking" };

export type BulkEvent<Plan, Sent extends BulkSent, Outcome> =
  | { type: "plan"; total: number }
  | { type: "read"; done: number }
  | { type: "planned"; plan: Plan }
  | { type: "replan"; plan: Plan }
  | { type: "send"; total: number }
  | { type: "sent"; index: number; sent: Sent }
  | { type: "sendsDone"; now: number; trackForMs: number }
  | { type: "checked"; outcome: Outcome; settled: boolean; now: number }
  | { type: "cancel" };

/** A send that never ran counts as an error, so the tally still adds up to what was planned. */
export const NOT_SENT: SendResult = { kind: "error", reason: "aborted" };

export function sendResults(results: readonly (BulkSent | null)[]): SendResult[] {
  return results.map((entry) => entry?.result ?? NOT_SENT);
}

/**
 * The next stage; an event that does not belong to the current stage leaves it as it is (a late
 * progress report after a cancel, a re-plan once sending began: the sent plan stays the one sent).
 */
export function bulkStep<Plan, Sent extends BulkSent, Outcome>(
  stage: BulkStage<Plan, Sent, Outcome>,
  event: BulkEvent<Plan, Sent, Outcome>,
): BulkStage<Plan, Sent, Outcome> {
  switch (event.type) {
    case "plan":
      // From cancelled too: a panel whose targets changed (or that React re-mounted) plans again.
      return stage.kind === "idle" || stage.kind === "cancelled"
        ? { kind: "planning", read: 0, total: event.total }
        : stage;
    case "read":
      return stage.kind === "planning" ? { ...stage, read: Math.min(event.done, stage.total) } : stage;
    case "planned":
      return stage.kind === "idle" || stage.kind === "planning" ? { kind: "planned", plan: event.plan } : stage;
    case "replan":
      return stage.kind === "planned" ? { kind: "planned", plan: event.plan } : stage;
    case "send":
      return stage.kind === "planned"
        ? { kind: "sending", plan: stage.plan, sent: 0, total: event.total, results: Array(event.total).fill(null) }
        : stage;
    case "sent":
      return stage.kind === "sending" ? recordSent(stage, event.index, event.sent) : stage;
    case "sendsDone":
      return stage.kind === "sending"
        ? {
            kind: "tracking",
            plan: stage.plan,
            results: stage.results,
            outcome: null,
            checks: 0,
            until: event.now + event.trackForMs,
          }
        : stage;
    case "checked":
      return stage.kind === "tracking" ? recordCheck(stage, event.outcome, event.settled, event.now) : stage;
    case "cancel":
      return stage.kind === "done" || stage.kind === "cancelled" ? stage : { kind: "cancelled", from: stage.kind };
  }
}

function recordSent<Plan, Sent extends BulkSent, Outcome>(
  stage: Extract<BulkStage<Plan, Sent, Outcome>, { kind: "sending" }>,
  index: number,
  sent: Sent,
): BulkStage<Plan, Sent, Outcome> {
  // An index outside the plan, or one already answered, is not a new send.
  if (index < 0 || index >= stage.total || stage.results[index] !== null) return stage;
  const results = stage.results.slice();
  results[index] = sent;
  return { ...stage, results, sent: stage.sent + 1 };
}

function recordCheck<Plan, Sent extends BulkSent, Outcome>(
  stage: Extract<BulkStage<Plan, Sent, Outcome>, { kind: "tracking" }>,
  outcome: Outcome,
  settled: boolean,
  now: number,
): BulkStage<Plan, Sent, Outcome> {
  const checks = stage.checks + 1;
  if (settled) return { kind: "done", plan: stage.plan, results: stage.results, outcome, checks, why: "settled" };
  if (now > stage.until)
    return { kind: "done", plan: stage.plan, results: stage.results, outcome, checks, why: "bound" };
  return { ...stage, outcome, checks };
}

export interface BulkView<Plan, Outcome> {
  /** The stage as the panels name it (`data-stage`): a panel shows sends until the first check came back, and a finished tally as tracking that ended. */
  shown: "idle" | "planning" | "planned" | "sending" | "tracking" | "cancelled";
  /** The plan once made (the sent one from sending on). */
  plan: Plan | null;
  reads: { read: number; total: number } | null;
  progress: { sent: number; total: number } | null;
  outcome: Outcome | null;
  checks: number;
  /** Tracking ended: settled, or the bound passed. */
  done: boolean;
}

/** What a panel shows of a stage. */
export function bulkView<Plan, Sent extends BulkSent, Outcome>(
  stage: BulkStage<Plan, Sent, Outcome>,
): BulkView<Plan, Outcome> {
  const none = { plan: null, reads: null, progress: null, outcome: null, checks: 0, done: false };
  switch (stage.kind) {
    case "idle":
    case "cancelled":
      return { ...none, shown: stage.kind };
    case "planning":
      return { ...none, shown: "planning", reads: { read: stage.read, total: stage.total } };
    case "planned":
      return { ...none, shown: "planned", plan: stage.plan };
    case "sending":
      return { ...none, shown: "sending", plan: stage.plan, progress: { sent: stage.sent, total: stage.total } };
    case "tracking":
      if (stage.outcome === null) {
        const sent = stage.results.filter((entry) => entry !== null).length;
        return { ...none, shown: "sending", plan: stage.plan, progress: { sent, total: stage.results.length } };
      }
      return { ...none, shown: "tracking", plan: stage.plan, outcome: stage.outcome, checks: stage.checks };
    case "done":
      return { ...none, shown: "tracking", plan: stage.plan, outcome: stage.outcome, checks: stage.checks, done: true };
  }
}
