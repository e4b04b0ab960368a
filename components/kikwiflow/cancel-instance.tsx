"use client";

import { useState } from "react";
import type { FormEvent } from "react";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useTranslations } from "next-intl";
import type { CancelAnswer } from "@/lib/kikwiflow/cancel-confirm";
import { CANCEL_REASON_MAX, cancellable, cancelReasonProblem } from "@/lib/kikwiflow/cancel-confirm";
import { cancelKikwiflowInstance, KikwiflowApiError, kikwiflowInstanceKey } from "@/lib/queries/kikwiflow";
import { Button } from "@/components/ui/button";
import { Dialog } from "@/components/ui/dialog";
import { Field, inputClass } from "@/components/ui/field";
import { EngineError } from "@/components/kikwiflow/engine-error";
import { useActDisabledReason } from "@/components/kikwiflow/use-act-disabled-reason";

type Accepted = Extract<CancelAnswer, { result: "accepted" }>;

/** The cancel command and its confirmed answer; kept by the screen, so the outcome outlives the instance's reads. */
export function useCancelInstance(instanceId: string) {
  const queryClient = useQueryClient();
  const [answer, setAnswer] = useState<Accepted | null>(null);
  const mutation = useMutation({
    mutationFn: (reason: string) => cancelKikwiflowInstance(instanceId, reason),
    onMutate: () => setAnswer(null),
    onSuccess: (result) => setAnswer(result.result === "accepted" ? result : null),
    onSettled: () => queryClient.invalidateQueries({ queryKey: kikwiflowInstanceKey(instanceId) }),
  });
  return { answer, mutation };
}

export type CancelHandle = ReturnType<typeof useCancelInstance>;

/**
 * "Cancel instance…" for an ACTIVE instance, with Terminate's rules: a reason is required, the
 * button says why it is disabled (read-only mode, role), and the dialog says what the engine really
 * does, since its REST has no cancel, only a delete.
 */
export function CancelInstance({ status, handle }: { status: string; handle: CancelHandle }) {
  const t = useTranslations("kikwiflow.cancel");
  const disabledReason = useActDisabledReason(t("needsOperator"));
  const [open, setOpen] = useState(false);
  const [reason, setReason] = useState("");
  const [problem, setProblem] = useState<string | null>(null);
  if (!cancellable(status) || handle.answer) return null;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const found = cancelReasonProblem(reason);
    if (found) return setProblem(t(found === "required" ? "reasonRequired" : "reasonTooLong"));
    setOpen(false);
    handle.mutation.mutate(reason.trim());
  };
  return (
    <div className="flex flex-wrap items-center gap-3" data-testid="kikwiflow-cancel">
      <Button
        variant="danger"
        data-testid="kikwiflow-cancel-open"
        disabled={disabledReason !== null || handle.mutation.isPending}
        onClick={() => setOpen(true)}
      >
        {handle.mutation.isPending ? t("cancelling") : t("open")}
      </Button>
      {disabledReason ? (
        <span className="text-xs text-fg-muted" data-testid="kikwiflow-cancel-reason">
          {disabledReason}
        </span>
      ) : null}
      <Dialog open={open} onClose={() => setOpen(false)} labelledBy="kikwiflow-cancel-title">
        <form onSubmit={submit} className="space-y-4 p-5" data-testid="kikwiflow-cancel-dialog" noValidate>
          <h2 id="kikwiflow-cancel-title" className="text-base font-semibold">
            {t("title")}
          </h2>
          <p className="text-sm text-fg-muted">{t("body")}</p>
          <Field label={t("reason")} hint={t("reasonHint")} error={problem ?? undefined}>
            <textarea
              name="reason"
              rows={3}
              maxLength={CANCEL_REASON_MAX}
              value={reason}
              aria-invalid={problem ? true : undefined}
              className={inputClass}
              onChange={(event) => {
                setReason(event.target.value);
                setProblem(null);
              }}
            />
          </Field>
          <div className="flex justify-end gap-2">
            <Button onClick={() => setOpen(false)}>{t("close")}</Button>
            <Button type="submit" variant="danger" data-testid="kikwiflow-cancel-submit">
              {t("submit")}
            </Button>
          </div>
        </form>
      </Dialog>
    </div>
  );
}

/** What the cancel did, said from the engine's re-read; a refusal or failure in the route's words. */
export function CancelOutcome({ handle }: { handle: CancelHandle }) {
  const t = useTranslations("kikwiflow.cancel");
  const { answer, mutation } = handle;
  if (answer) {
    const confirmed = answer.verdict.phase === "confirmed";
    const status = answer.verdict.phase === "confirmed" ? null : answer.verdict.status;
    return (
      <p
        role="status"
        data-testid="kikwiflow-cancel-outcome"
        data-phase={answer.verdict.phase}
        className={`rounded-md border p-3 text-sm ${confirmed ? "border-ok/40 bg-ok/10" : "border-warn/40 bg-warn/10"}`}
      >
        {confirmed ? t("confirmed") : t("timedOut", { status: status ?? t("unknown") })}
      </p>
    );
  }
  if (mutation.error instanceof KikwiflowApiError && mutation.error.status === 409) {
    return (
      <p role="status" data-testid="kikwiflow-cancel-outcome" data-phase="not_active" className="text-sm">
        {mutation.error.message}
      </p>
    );
  }
  return mutation.error ? <EngineError error={mutation.error} /> : null;
}
