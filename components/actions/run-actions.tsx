"use client";

import { useEffect, useMemo, useRef, useState } from "react";
import type { FormEvent, ReactNode } from "react";
import Link from "next/link";
import { useQueryClient } from "@tanstack/react-query";
import type { RunDescription, WorkflowDebug } from "@/lib/dw/schemas-workflows";
import type { RunAction } from "@/lib/views/capabilities";
import { RUN_ACTIONS, runCapabilities } from "@/lib/views/capabilities";
import type { ConfirmAction } from "@/lib/confirm/confirm";
import { runHref } from "@/lib/routes/route-for";
import { invalidateAfterRunAction } from "@/lib/queries/invalidate";
import type { ActionAnswer, ActionError, RunActionRequest } from "@/components/actions/action-api";
import { parseSignalInput, suggestAgainWorkflowId } from "@/components/actions/action-api";
import { newRequestId, sendRunAction } from "@/components/actions/send-action";
import { useActionContext } from "@/components/actions/use-action-context";
import { useActionWords } from "@/components/actions/use-action-words";
import { useConfirmation } from "@/components/actions/use-confirmation";

export interface RunActionsProps {
  /** The page's namespace: actions are sent there (X-Namespace), whatever another tab switched to. */
  namespace: string;
  workflowId: string;
  runId: string;
  /** `GET /workflows/{id}/runs/{runId}`. */
  describe: Pick<RunDescription, "status" | "is_terminal" | "is_current_run" | "actions" | "workflow_type"> & {
    archived_at?: unknown;
  };
  /** `GET …/debug`; repair stays disabled until liveness is known. */
  debug: Pick<WorkflowDebug, "execution"> | null;
}

type Phase =
  | { kind: "idle" }
  | { kind: "sending"; action: RunAction }
  | { kind: "answered"; action: RunAction; answer: ActionAnswer; answerMs: number }
  | { kind: "failed"; action: RunAction; error: ActionError };

const DANGER: ReadonlySet<RunAction> = new Set<RunAction>(["cancel", "terminate"]);

function Field({ label, hint, children }: { label: string; hint?: string; children: ReactNode }) {
  return (
    <label className="flex flex-col gap-1 text-sm text-fg">
      <span className="font-medium">{label}</span>
      {children}
      {hint ? <span className="text-xs text-fg-muted">{hint}</span> : null}
    </label>
  );
}

const inputClass =
  "rounded-md border border-line bg-canvas px-2 py-1.5 text-sm text-fg focus:outline-2 focus:outline-focus";

/**
 * Operator actions for one run, each enabled or explained by `runCapabilities`, sent through the
 * guarded `/api/actions/runs` handler, and then confirmed against the run's durable history.
 */
export function RunActions({ namespace, workflowId, runId, describe, debug }: RunActionsProps) {
  const words = useActionWords();
  const { t } = words;
  const context = useActionContext();
  const queryClient = useQueryClient();
  const capabilities = useMemo(
    () =>
      runCapabilities(
        {
          status: describe.status,
          is_terminal: describe.is_terminal,
          is_current_run: describe.is_current_run,
          archived_at: typeof describe.archived_at === "string" ? describe.archived_at : null,
          actions: describe.actions,
        },
        { readOnly: context.readOnly, role: context.role, liveness: debug?.execution ?? null },
      ),
    [describe, debug, context.readOnly, context.role],
  );

  const [open, setOpen] = useState<RunAction | null>(null);
  const [phase, setPhase] = useState<Phase>({ kind: "idle" });
  const [reason, setReason] = useState("");
  const [signalName, setSignalName] = useState("");
  const [signalInput, setSignalInput] = useState("");
  const [newId, setNewId] = useState("");
  const [formProblem, setFormProblem] = useState<string | null>(null);
  const dialogRef = useRef<HTMLDialogElement>(null);
  const {
    state: confirmState,
    start: startConfirmation,
    reset: resetConfirmation,
  } = useConfirmation(namespace, () => {
    void invalidateAfterRunAction(queryClient, namespace, { workflowId, runId });
  });

  useEffect(() => {
    const dialog = dialogRef.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);

  const openDialog = (action: RunAction) => {
    setReason("");
    setSignalName("");
    setSignalInput("");
    setFormProblem(null);
    setNewId(suggestAgainWorkflowId(workflowId));
    setOpen(action);
  };

  const busy = phase.kind === "sending" || confirmState?.confirmation.phase === "awaiting";

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!open) return;
    const action = open;
    const base = { workflowId, runId, requestId: newRequestId() };
    let request: RunActionRequest;
    switch (action) {
      case "repair":
        request = { action, ...base };
        break;
      case "cancel":
      case "terminate":
        if (!reason.trim()) return setFormProblem(t("form.reasonRequired"));
        request = { action, ...base, reason: reason.trim() };
        break;
      case "archive":
        request = { action, ...base, reason: reason.trim() || undefined };
        break;
      case "signal": {
        if (!signalName.trim()) return setFormProblem(t("form.signalNameRequired"));
        const input = parseSignalInput(signalInput);
        if (!input.ok)
          return setFormProblem(input.problem === "json" ? t("form.signalInputJson") : t("form.signalInputArray"));
        request = { action, ...base, signalName: signalName.trim(), input: input.value };
        break;
      }
      case "startAgain":
        if (!/^[a-zA-Z0-9._:-]{1,128}$/.test(newId.trim())) return setFormProblem(t("form.workflowIdInvalid"));
        request = { action, ...base, newWorkflowId: newId.trim() };
        break;
    }
    setOpen(null);
    resetConfirmation();
    const clickedAt = performance.now();
    setPhase({ kind: "sending", action });
    const sent = await sendRunAction(namespace, request);
    if (!sent.ok) return setPhase({ kind: "failed", action, error: sent.error });
    const answer = sent.answer;
    setPhase({ kind: "answered", action, answer, answerMs: Math.round(performance.now() - clickedAt) });
    if (answer.result !== "accepted") return;
    const confirmAction: ConfirmAction = action;
    const isStart = action === "startAgain";
    startConfirmation({
      command: { action: confirmAction, commandId: answer.commandId, outcome: answer.outcome },
      workflowId: isStart ? answer.workflowId : workflowId,
      runId: isStart ? (answer.runId ?? "") : runId,
      afterSequence: isStart ? null : (debug?.execution.last_event?.sequence ?? null),
      clickedAt,
    });
  };

  const actionLabel = (action: RunAction) => t(`action.${action}`);
  const disabledReasons = RUN_ACTIONS.map((action) => ({
    action,
    text: context.known ? words.capability(capabilities[action]) : t("checkingPermissions"),
  })).filter((entry): entry is { action: RunAction; text: string } => entry.text !== null);

  return (
    <section aria-label={t("sectionLabel")} data-testid="run-actions" className="space-y-3">
      <div className="flex flex-wrap gap-2">
        {RUN_ACTIONS.map((action) => {
          const capability = capabilities[action];
          const enabled = context.known && capability.enabled && !busy;
          const why = context.known ? words.capability(capability) : t("checkingPermissions");
          return (
            <button
              key={action}
              type="button"
              data-action={action}
              disabled={!enabled}
              title={why ?? undefined}
              aria-describedby={why ? `run-action-why-${action}` : undefined}
              onClick={() => openDialog(action)}
              className={`rounded-md border px-3 py-1.5 text-sm font-medium disabled:cursor-not-allowed disabled:opacity-50 ${
                DANGER.has(action)
                  ? "border-bad/50 text-bad hover:bg-bad/10"
                  : "border-line text-fg hover:bg-accent-soft"
              }`}
            >
              {actionLabel(action)}
            </button>
          );
        })}
      </div>
      {disabledReasons.length ? (
        <ul className="space-y-0.5 text-xs text-fg-muted" data-testid="action-reasons">
          {disabledReasons.map(({ action, text }) => (
            <li key={action} id={`run-action-why-${action}`}>
              <span className="font-medium">{actionLabel(action)}:</span> {text}
            </li>
          ))}
        </ul>
      ) : null}

      <dialog
        ref={dialogRef}
        onClose={() => setOpen(null)}
        aria-labelledby="run-action-title"
        className="m-auto w-full max-w-lg rounded-lg border border-line bg-panel p-0 text-fg shadow-xl backdrop:bg-black/40"
      >
        {open ? (
          <form onSubmit={submit} className="space-y-4 p-5" data-testid="action-dialog">
            <h2 id="run-action-title" className="text-base font-semibold">
              {t(`dialog.${open}.title`)}
            </h2>
            <p className="text-sm text-fg-muted">{t(`dialog.${open}.body`, { workflowId, runId })}</p>
            {open === "repair" && debug?.execution.liveness_reason ? (
              <p className="rounded-md bg-panel-muted px-3 py-2 font-mono text-xs break-words text-fg">
                {debug.execution.liveness_reason}
              </p>
            ) : null}
            {open === "cancel" || open === "terminate" || open === "archive" ? (
              <Field label={open === "archive" ? t("form.reasonOptional") : t("form.reason")}>
                <textarea
                  name="reason"
                  value={reason}
                  onChange={(e) => setReason(e.target.value)}
                  rows={3}
                  maxLength={1000}
                  className={inputClass}
                />
              </Field>
            ) : null}
            {open === "signal" ? (
              <>
                <Field label={t("form.signalName")}>
                  <input
                    name="signalName"
                    value={signalName}
                    onChange={(e) => setSignalName(e.target.value)}
                    maxLength={256}
                    className={inputClass}
                  />
                </Field>
                <Field label={t("form.signalInput")} hint={t("form.signalInputHint")}>
                  <textarea
                    name="signalInput"
                    value={signalInput}
                    onChange={(e) => setSignalInput(e.target.value)}
                    rows={4}
                    className={`${inputClass} font-mono`}
                  />
                </Field>
              </>
            ) : null}
            {open === "startAgain" ? (
              <Field
                label={t("form.newWorkflowId")}
                hint={t("form.newWorkflowIdHint", { workflowType: describe.workflow_type })}
              >
                <input
                  name="newWorkflowId"
                  value={newId}
                  onChange={(e) => setNewId(e.target.value)}
                  maxLength={128}
                  className={`${inputClass} font-mono`}
                />
              </Field>
            ) : null}
            {formProblem ? (
              <p role="alert" className="text-sm text-bad">
                {formProblem}
              </p>
            ) : null}
            <div className="flex justify-end gap-2">
              <button
                type="button"
                onClick={() => setOpen(null)}
                className="rounded-md border border-line px-3 py-1.5 text-sm"
              >
                {t("dialog.close")}
              </button>
              <button
                type="submit"
                data-testid="action-submit"
                className={`rounded-md px-3 py-1.5 text-sm font-medium ${DANGER.has(open) ? "bg-bad text-canvas" : "bg-accent text-accent-fg"}`}
              >
                {t(`dialog.${open}.submit`)}
              </button>
            </div>
          </form>
        ) : null}
      </dialog>

      <ActionStatus
        namespace={namespace}
        phase={phase}
        confirm={confirmState}
        onRecheck={() =>
          confirmState && startConfirmation({ ...confirmState.target, clickedAt: confirmState.target.clickedAt })
        }
      />
    </section>
  );
}

function ActionStatus({
  namespace,
  phase,
  confirm,
  onRecheck,
}: {
  namespace: string;
  phase: Phase;
  confirm: ReturnType<typeof useConfirmation>["state"];
  onRecheck: () => void;
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
          {confirm ? <ConfirmationView namespace={namespace} confirm={confirm} onRecheck={onRecheck} /> : null}
        </>
      ) : null}
    </div>
  );
}

function ConfirmationView({
  namespace,
  confirm,
  onRecheck,
}: {
  namespace: string;
  confirm: NonNullable<ReturnType<typeof useConfirmation>["state"]>;
  onRecheck: () => void;
}) {
  const words = useActionWords();
  const { t } = words;
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
          ? t("confirm.confirmed", { seconds: ((confirm.durableMs ?? 0) / 1000).toFixed(1) })
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
        <button type="button" onClick={onRecheck} className="rounded-md border border-line px-2 py-1 text-xs">
          {t("confirm.recheck")}
        </button>
      ) : null}
      {confirm.readError ? (
        <p className="text-xs text-warn">{t("confirm.readError", { message: confirm.readError })}</p>
      ) : null}
      {target.command.action === "repair" && confirmation.phase === "confirmed" && confirm.runStatus ? (
        <p data-testid="run-follow-up" data-run-status={confirm.runStatus}>
          {t("confirm.followUp", { status: confirm.runStatus, liveness: confirm.livenessState ?? "–" })}
        </p>
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
