"use client";

import type { FormEvent, ReactNode } from "react";
import type { FieldSpec, FormValues } from "@/lib/actions/forms";
import { formRequest, RUN_ACTION_FORMS } from "@/lib/actions/forms";
import type { RunActionRequest } from "@/lib/actions/contract";
import { Button } from "@/components/ui/button";
import { Dialog } from "@/components/ui/dialog";
import { Field, inputClass } from "@/components/ui/field";
import { newRequestId } from "@/components/actions/send-action";
import type { ActionDialogHandle } from "@/components/actions/use-action-dialog";
import { useActionWords } from "@/components/actions/use-action-words";
import { SignalNameCheckView } from "@/components/actions/signal-name-check";
import type { SignalNameCheck } from "@/lib/views/signal-names";
import { checkSignalName } from "@/lib/views/signal-names";

/**
 * The confirmation dialog of the open action: its title and body, the fields its form descriptor
 * lists, and the descriptor's verdict on what was typed before anything is sent.
 */
export function ActionDialog({
  dialog,
  workflowId,
  runId,
  workflowType,
  livenessReason,
  awaitedSignals = [],
  onSubmit,
}: {
  dialog: ActionDialogHandle;
  workflowId: string;
  runId: string;
  workflowType: string;
  /** The server's liveness sentence, shown in the repair dialog. */
  livenessReason: string | null;
  /** Signal names the run awaits (open signal waits ∪ describe's wait_reason), offered as choices. */
  awaitedSignals?: readonly string[];
  onSubmit: (request: RunActionRequest) => void;
}) {
  const { t } = useActionWords();
  const action = dialog.action;
  const signalCheck = checkSignalName(dialog.values.signalName, awaitedSignals);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!action) return;
    const result = formRequest(action, dialog.values, { workflowId, runId, requestId: newRequestId() });
    if (!result.ok) return dialog.refuse({ field: result.field, problem: result.problem });
    dialog.close();
    onSubmit(result.request);
  };
  return (
    <Dialog open={action !== null} onClose={dialog.close} labelledBy="run-action-title">
      {action ? (
        <form onSubmit={submit} className="space-y-4 p-5" data-testid="action-dialog">
          <h2 id="run-action-title" className="text-base font-semibold">
            {t(`dialog.${action}.title`)}
          </h2>
          <p className="text-sm text-fg-muted">{t(`dialog.${action}.body`, { workflowId, runId })}</p>
          {isStop(action) ? <StopEffects current={action} /> : null}
          {action === "repair" && livenessReason ? (
            <p className="rounded-md bg-panel-muted px-3 py-2 font-mono text-xs break-words text-fg">
              {livenessReason}
            </p>
          ) : null}
          {RUN_ACTION_FORMS[action].fields.map((field) => (
            <FormField
              key={field.name}
              field={field}
              values={dialog.values}
              onChange={dialog.setValue}
              error={dialog.problem?.field === field.name ? t(`form.${dialog.problem.problem}`) : undefined}
              workflowType={workflowType}
            >
              {field.name === "signalName" ? (
                <SignalNameCheckView
                  awaited={awaitedSignals}
                  check={signalCheck}
                  typed={dialog.values.signalName}
                  onPick={(name) => dialog.setValue("signalName", name)}
                />
              ) : null}
            </FormField>
          ))}
          <div className="flex justify-end gap-2">
            <Button onClick={dialog.close}>{t("dialog.close")}</Button>
            <Button
              type="submit"
              data-testid="action-submit"
              variant={RUN_ACTION_FORMS[action].danger ? "danger" : "primary"}
            >
              {submitLabel(action, signalCheck, dialog.values.signalName, t)}
            </Button>
          </div>
        </form>
      ) : null}
    </Dialog>
  );
}

/** The three ways to stop a run, gentlest first; each dialog of the three compares them. */
type Stop = "requestCancellation" | "cancel" | "terminate";
const STOPS: readonly Stop[] = ["requestCancellation", "cancel", "terminate"];

function isStop(action: string): action is Stop {
  return (STOPS as readonly string[]).includes(action);
}

/**
 * What each stop does to running activities (workflow@8dc90d64 `WorkflowStub::attemptTerminalCommand`
 * for Cancel and Terminate; docs/contract.md "Cooperative cancellation" for the request), with the
 * open dialog's own line marked, so the operator picks knowingly.
 */
function StopEffects({ current }: { current: Stop }) {
  const { t } = useActionWords();
  return (
    <div className="space-y-1 rounded-md border border-line px-3 py-2 text-xs" data-testid="stop-effects">
      <p className="font-medium text-fg">{t("effects.title")}</p>
      <ul className="space-y-1">
        {STOPS.map((stop) => (
          <li
            key={stop}
            data-effect={stop}
            aria-current={stop === current ? "true" : undefined}
            className={stop === current ? "text-fg" : "text-fg-muted"}
          >
            <span className="font-medium">{t(`action.${stop}`)}:</span> {t(`effects.${stop}`)}
          </li>
        ))}
      </ul>
    </div>
  );
}

/** "Send ‘aprove’ anyway" when the run does not await the typed name: the button says what it will do. */
function submitLabel(
  action: NonNullable<ActionDialogHandle["action"]>,
  check: SignalNameCheck,
  typed: string,
  t: ReturnType<typeof useActionWords>["t"],
): string {
  if (action === "signal" && (check.kind === "unawaited" || check.kind === "none_awaited"))
    return t("signalCheck.sendAnyway", { name: typed.trim() });
  return t(`dialog.${action}.submit`);
}

/** One field of a form descriptor, as an input or a textarea in the console's Field. */
function FormField({
  field,
  values,
  onChange,
  error,
  workflowType,
  children,
}: {
  field: FieldSpec;
  values: FormValues;
  onChange: (name: FieldSpec["name"], value: string) => void;
  error: string | undefined;
  workflowType: string;
  /** Shown under the field (outside its label, so buttons there do not focus the input). */
  children?: ReactNode;
}) {
  const { t } = useActionWords();
  const control = {
    name: field.name,
    value: values[field.name],
    maxLength: field.maxLength,
    "aria-invalid": error ? true : undefined,
    className: field.monospace ? `${inputClass} font-mono` : inputClass,
    inputMode: field.numeric ? ("numeric" as const) : undefined,
  };
  return (
    <div className="space-y-2">
      <Field
        label={t(`form.${field.label}`)}
        hint={field.hint ? t(`form.${field.hint}`, { workflowType }) : undefined}
        error={error}
      >
        {field.control === "textarea" ? (
          <textarea {...control} rows={field.rows} onChange={(event) => onChange(field.name, event.target.value)} />
        ) : (
          <input {...control} onChange={(event) => onChange(field.name, event.target.value)} />
        )}
      </Field>
      {children}
    </div>
  );
}
