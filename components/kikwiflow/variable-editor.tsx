"use client";

import { useState } from "react";
import type { FormEvent } from "react";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useTranslations } from "next-intl";
import type { VariableEdit, VariableEditAnswer, VariableKind } from "@/lib/kikwiflow/variable-edit";
import {
  displayValue,
  draftOf,
  isVariableProblem,
  kindOf,
  parseDraft,
  sameValue,
  VARIABLE_KINDS,
  visibleText,
} from "@/lib/kikwiflow/variable-edit";
import { KikwiflowApiError, kikwiflowInstanceKey, setKikwiflowVariable } from "@/lib/queries/kikwiflow";
import { Button } from "@/components/ui/button";
import { Dialog } from "@/components/ui/dialog";
import { Field, inputClass } from "@/components/ui/field";
import { EngineError } from "@/components/kikwiflow/engine-error";

/** The edit command and its confirmed answer, kept by the variables section so the outcome stays up. */
export function useVariableEdit(instanceId: string) {
  const queryClient = useQueryClient();
  const [answer, setAnswer] = useState<VariableEditAnswer | null>(null);
  const mutation = useMutation({
    mutationFn: (edit: VariableEdit) => setKikwiflowVariable(instanceId, edit),
    onMutate: () => setAnswer(null),
    onSuccess: setAnswer,
    onSettled: () => queryClient.invalidateQueries({ queryKey: kikwiflowInstanceKey(instanceId) }),
  });
  return { answer, mutation };
}

export type VariableEditHandle = ReturnType<typeof useVariableEdit>;

/** The typed control for one kind: a text box, a number box, true/false, or a JSON area. */
function ValueInput({
  kind,
  draft,
  invalid,
  onChange,
}: {
  kind: VariableKind;
  draft: string;
  invalid: boolean;
  onChange: (text: string) => void;
}) {
  const t = useTranslations("kikwiflow.variables");
  const common = { "aria-invalid": invalid ? true : undefined, "data-testid": "kikwiflow-variable-input" } as const;
  if (kind === "boolean") {
    return (
      <select {...common} value={draft} className={inputClass} onChange={(event) => onChange(event.target.value)}>
        <option value="true">true</option>
        <option value="false">false</option>
      </select>
    );
  }
  if (kind === "number") {
    return (
      <input
        {...common}
        inputMode="decimal"
        autoComplete="off"
        spellCheck={false}
        value={draft}
        placeholder={t("numberPlaceholder")}
        className={`${inputClass} font-mono`}
        onChange={(event) => onChange(event.target.value)}
      />
    );
  }
  return (
    <textarea
      {...common}
      rows={kind === "json" ? 6 : 3}
      spellCheck={false}
      value={draft}
      className={`${inputClass} font-mono text-xs`}
      onChange={(event) => onChange(event.target.value)}
    />
  );
}

/** A value shown as text, never as markup, however hostile; long ones scroll inside the box. */
function ValueBox({ value, testId }: { value: unknown; testId: string }) {
  return (
    <pre
      data-testid={testId}
      className="max-h-40 overflow-auto rounded-md border border-line bg-canvas p-2 font-mono text-xs break-all whitespace-pre-wrap"
    >
      {displayValue(value)}
    </pre>
  );
}

type Step = { readonly stage: "edit" } | { readonly stage: "confirm"; readonly value: unknown };

/**
 * The dialog for one variable: a type-aware input checked before anything is sent, then a
 * confirmation that shows old → new; Send posts the edit with the old value as `expected`, so a change
 * made meanwhile is refused rather than overwritten.
 */
export function VariableEditor({
  name,
  value,
  handle,
  onClose,
}: {
  name: string;
  value: unknown;
  handle: VariableEditHandle;
  onClose: () => void;
}) {
  const t = useTranslations("kikwiflow.variables");
  const [kind, setKind] = useState<VariableKind>(kindOf(value));
  const [draft, setDraft] = useState(draftOf(value, kindOf(value)));
  const [problem, setProblem] = useState<string | null>(null);
  const [step, setStep] = useState<Step>({ stage: "edit" });

  const changeKind = (next: VariableKind) => {
    // Carry what was typed into the new type when it reads as a value; else start from the stored one.
    const typed = parseDraft(kind, draft);
    setDraft(draftOf(typed.ok ? typed.value : value, next));
    setKind(next);
    setProblem(null);
  };
  const review = (event: FormEvent) => {
    event.preventDefault();
    const parsed = parseDraft(kind, draft);
    if (!parsed.ok) return setProblem(t(`problems.${parsed.problem}`));
    if (sameValue(parsed.value, value)) return setProblem(t("problems.unchanged"));
    setStep({ stage: "confirm", value: parsed.value });
  };
  const send = () => {
    if (step.stage !== "confirm") return;
    handle.mutation.mutate({ name, value: step.value, expected: value });
    onClose();
  };

  return (
    <Dialog open onClose={onClose} labelledBy="kikwiflow-variable-title" width="max-w-xl">
      {step.stage === "edit" ? (
        <form onSubmit={review} className="space-y-4 p-5" data-testid="kikwiflow-variable-dialog" noValidate>
          <h2 id="kikwiflow-variable-title" className="text-base font-semibold break-all">
            {t("dialogTitle", { name: visibleText(name) })}
          </h2>
          <Field label={t("current")}>
            <ValueBox value={value} testId="kikwiflow-variable-current" />
          </Field>
          <Field label={t("type")} hint={t("typeHint", { kind: t(`kinds.${kindOf(value)}`) })}>
            <select
              value={kind}
              data-testid="kikwiflow-variable-kind"
              className={inputClass}
              onChange={(event) => changeKind(event.target.value as VariableKind)}
            >
              {VARIABLE_KINDS.map((option) => (
                <option key={option} value={option}>
                  {t(`kinds.${option}`)}
                </option>
              ))}
            </select>
          </Field>
          <Field label={t("newValue")} error={problem ?? undefined}>
            <ValueInput
              kind={kind}
              draft={draft}
              invalid={problem !== null}
              onChange={(text) => {
                setDraft(text);
                setProblem(null);
              }}
            />
          </Field>
          <div className="flex flex-wrap justify-end gap-2">
            <Button onClick={onClose}>{t("close")}</Button>
            <Button type="submit" variant="primary" data-testid="kikwiflow-variable-review">
              {t("review")}
            </Button>
          </div>
        </form>
      ) : (
        <div className="space-y-4 p-5" data-testid="kikwiflow-variable-confirm">
          <h2 id="kikwiflow-variable-title" className="text-base font-semibold break-all">
            {t("confirmTitle", { name: visibleText(name) })}
          </h2>
          <div className="grid gap-2 sm:grid-cols-2">
            <div className="min-w-0 space-y-1 text-sm">
              <p className="font-medium">{t("old")}</p>
              <ValueBox value={value} testId="kikwiflow-variable-old" />
            </div>
            <div className="min-w-0 space-y-1 text-sm">
              <p className="font-medium">{t("new")}</p>
              <ValueBox value={step.value} testId="kikwiflow-variable-new" />
            </div>
          </div>
          <p className="text-sm text-fg-muted">{t("confirmBody")}</p>
          <div className="flex flex-wrap justify-end gap-2">
            <Button onClick={() => setStep({ stage: "edit" })}>{t("back")}</Button>
            <Button variant="primary" data-testid="kikwiflow-variable-submit" onClick={send}>
              {t("submit")}
            </Button>
          </div>
        </div>
      )}
    </Dialog>
  );
}

/** What the edit did, said from the engine's read of the instance; refusals in the console's words. */
export function VariableEditOutcome({ handle }: { handle: VariableEditHandle }) {
  const t = useTranslations("kikwiflow.variables");
  const { answer, mutation } = handle;
  if (mutation.isPending) {
    return (
      <p role="status" data-testid="kikwiflow-variable-outcome" data-phase="pending" className="text-sm">
        {t("saving")}
      </p>
    );
  }
  if (answer?.result === "accepted") {
    const { verdict } = answer;
    const name = visibleText(answer.name);
    const words =
      verdict.phase === "confirmed"
        ? t("confirmed", { name, value: displayValue(answer.value) })
        : verdict.phase === "differs"
          ? t("differs", { name, now: displayValue(verdict.now) })
          : t(verdict.phase, { name });
    const ok = verdict.phase === "confirmed";
    return (
      <p
        role="status"
        data-testid="kikwiflow-variable-outcome"
        data-phase={verdict.phase}
        className={`rounded-md border p-3 text-sm break-all ${ok ? "border-ok/40 bg-ok/10" : "border-warn/40 bg-warn/10"}`}
      >
        {words}
      </p>
    );
  }
  const error = mutation.error;
  if (error instanceof KikwiflowApiError && (error.status === 409 || error.status === 422 || error.status === 400)) {
    return (
      <p
        role="alert"
        data-testid="kikwiflow-variable-outcome"
        data-phase={error.reason}
        className="rounded-md border border-warn/40 bg-warn/10 p-3 text-sm break-all"
      >
        {refusalWords(t, error)}
      </p>
    );
  }
  return error ? <EngineError error={error} /> : null;
}

type Translate = ReturnType<typeof useTranslations<"kikwiflow.variables">>;

function refusalWords(t: Translate, error: KikwiflowApiError): string {
  const body = (error.body ?? {}) as Record<string, unknown>;
  const name = typeof body.name === "string" ? visibleText(body.name) : "";
  if (error.status === 409) {
    return Object.hasOwn(body, "current")
      ? t("changedSince", { name, current: displayValue(body.current) })
      : t("vanished", { name });
  }
  if (error.status === 422) {
    const message = typeof body.engineMessage === "string" ? body.engineMessage : error.message;
    return t("refused", { status: String(body.httpStatus ?? 400), message, kept: body.kept === true ? "yes" : "no" });
  }
  return isVariableProblem(body.problem) ? t(`problems.${body.problem}`) : error.message;
}
