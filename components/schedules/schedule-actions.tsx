"use client";

import { useState } from "react";
import type { FormEvent } from "react";
import { useTranslations } from "next-intl";
import type { ScheduleActionRequest } from "@/lib/actions/schedule-commands";
import type { OverlapPolicy, ScheduleSpec } from "@/lib/dw/schemas-schedules";
import { OVERLAP_POLICIES } from "@/lib/dw/schedule-enums";
import { utcIso } from "@/lib/views/schedule-spec";
import { backfillFireCount } from "@/lib/views/schedule-fires";
import type { ScheduleAction, ScheduleState } from "@/lib/views/schedules";
import { SCHEDULE_ACTIONS, scheduleCapability } from "@/lib/views/schedules";
import { runHref, screenHref } from "@/lib/routes/route-for";
import { useActionContext } from "@/components/actions/use-action-context";
import { Button } from "@/components/ui/button";
import { Dialog } from "@/components/ui/dialog";
import { Field, inputClass } from "@/components/ui/field";
import Link from "@/components/ui/link";
import { useTimeFormat } from "@/components/hooks/use-time-format";
import { useScheduleAction } from "@/components/schedules/use-schedule-action";
import type { ScheduleActionState } from "@/components/schedules/use-schedule-action";

const NOTE_MAX = 1000;

/** The schedule's actions for an operator, each disabled with its reason, and the outcome confirmed. */
export function ScheduleActions({
  namespace,
  scheduleId,
  state,
  overlapPolicy,
  spec,
}: {
  namespace: string;
  scheduleId: string;
  state: ScheduleState;
  overlapPolicy: string | null | undefined;
  spec: ScheduleSpec | null | undefined;
}) {
  const t = useTranslations("schedules.actions");
  const tv = useTranslations();
  const context = useActionContext();
  const [open, setOpen] = useState<ScheduleAction | null>(null);
  const action = useScheduleAction(namespace, scheduleId);
  const busy = action.state.phase === "sending" || action.state.phase === "confirming";
  const submit = (request: ScheduleActionRequest) => {
    setOpen(null);
    void action.run(request);
  };
  return (
    <div className="space-y-3" data-testid="schedule-actions">
      <div className="flex flex-wrap gap-2">
        {SCHEDULE_ACTIONS.map((name) => {
          const capability = scheduleCapability(name, state, context);
          const enabled = context.known && capability.enabled && !busy;
          const why = capability.message
            ? tv(capability.message.id as Parameters<typeof tv>[0], capability.message.values)
            : capability.stateReason
              ? t(`why.${capability.stateReason}`)
              : undefined;
          return (
            <Button
              key={name}
              variant={name === "delete" ? "danger" : "secondary"}
              size="sm"
              disabled={!enabled}
              title={why}
              aria-describedby={why ? `why-${name}` : undefined}
              onClick={() => setOpen(name)}
              data-testid={`schedule-action-${name}`}
            >
              {t(`${name}.button`)}
              {why ? (
                <span id={`why-${name}`} className="sr-only">
                  {why}
                </span>
              ) : null}
            </Button>
          );
        })}
      </div>
      {!context.known ? null : context.readOnly ? (
        <p className="text-xs text-fg-muted" data-testid="schedule-actions-refused">
          {tv("views.capability.read_only")}
        </p>
      ) : null}
      <ActionStatus namespace={namespace} state={action.state} />
      <NoteDialog
        kind={open === "pause" || open === "resume" ? open : null}
        scheduleId={scheduleId}
        onClose={() => setOpen(null)}
        onSubmit={submit}
      />
      <TriggerDialog
        open={open === "trigger"}
        scheduleId={scheduleId}
        current={overlapPolicy}
        onClose={() => setOpen(null)}
        onSubmit={submit}
      />
      <BackfillDialog
        open={open === "backfill"}
        scheduleId={scheduleId}
        spec={spec}
        onClose={() => setOpen(null)}
        onSubmit={submit}
      />
      <DeleteDialog open={open === "delete"} scheduleId={scheduleId} onClose={() => setOpen(null)} onSubmit={submit} />
    </div>
  );
}

function DialogForm({
  id,
  title,
  body,
  onSubmit,
  onClose,
  submitLabel,
  danger = false,
  children,
}: {
  id: string;
  title: string;
  body: string;
  onSubmit: () => void;
  onClose: () => void;
  submitLabel: string;
  danger?: boolean;
  children: React.ReactNode;
}) {
  const t = useTranslations("schedules.actions");
  const send = (event: FormEvent) => {
    event.preventDefault();
    onSubmit();
  };
  return (
    <form onSubmit={send} className="space-y-4 p-5" data-testid={`schedule-dialog-${id}`}>
      <h2 id={`schedule-${id}-title`} className="text-base font-semibold">
        {title}
      </h2>
      <p className="text-sm text-fg-muted">{body}</p>
      {children}
      <div className="flex justify-end gap-2">
        <Button onClick={onClose}>{t("cancel")}</Button>
        <Button type="submit" variant={danger ? "danger" : "primary"}>
          {submitLabel}
        </Button>
      </div>
    </form>
  );
}

function NoteDialog({
  kind,
  scheduleId,
  onClose,
  onSubmit,
}: {
  kind: "pause" | "resume" | null;
  scheduleId: string;
  onClose: () => void;
  onSubmit: (request: ScheduleActionRequest) => void;
}) {
  const t = useTranslations("schedules.actions");
  const [note, setNote] = useState("");
  const [error, setError] = useState<string | null>(null);
  const close = () => {
    setNote("");
    setError(null);
    onClose();
  };
  return (
    <Dialog open={kind !== null} onClose={close} labelledBy={`schedule-${kind ?? "pause"}-title`}>
      {kind ? (
        <DialogForm
          id={kind}
          title={t(`${kind}.title`)}
          body={t(`${kind}.body`, { scheduleId })}
          submitLabel={t(`${kind}.submit`)}
          onClose={close}
          onSubmit={() => {
            if (note.trim() === "") return setError(t("noteRequired"));
            onSubmit({ action: kind, scheduleId, note: note.trim() });
            close();
          }}
        >
          <Field label={t("note")} hint={t("noteHint", { max: NOTE_MAX })} error={error}>
            <textarea
              className={inputClass}
              rows={3}
              maxLength={NOTE_MAX}
              value={note}
              aria-invalid={error !== null}
              onChange={(e) => setNote(e.target.value)}
              data-testid="schedule-note-input"
            />
          </Field>
        </DialogForm>
      ) : null}
    </Dialog>
  );
}

function PolicySelect({
  value,
  onChange,
  current,
}: {
  value: string;
  onChange: (v: string) => void;
  current?: string | null;
}) {
  const t = useTranslations("schedules");
  return (
    <Field
      label={t("actions.overlap")}
      hint={current ? t("actions.overlapCurrent", { policy: t(`overlap.${current as OverlapPolicy}`) }) : undefined}
    >
      <select
        className={inputClass}
        value={value}
        onChange={(e) => onChange(e.target.value)}
        data-testid="schedule-overlap-input"
      >
        <option value="">{t("actions.overlapSchedule")}</option>
        {OVERLAP_POLICIES.map((policy) => (
          <option key={policy} value={policy}>
            {t(`overlap.${policy}`)}
          </option>
        ))}
      </select>
    </Field>
  );
}

function TriggerDialog({
  open,
  scheduleId,
  current,
  onClose,
  onSubmit,
}: {
  open: boolean;
  scheduleId: string;
  current: string | null | undefined;
  onClose: () => void;
  onSubmit: (request: ScheduleActionRequest) => void;
}) {
  const t = useTranslations("schedules.actions");
  const [policy, setPolicy] = useState("");
  return (
    <Dialog open={open} onClose={onClose} labelledBy="schedule-trigger-title">
      {open ? (
        <DialogForm
          id="trigger"
          title={t("trigger.title")}
          body={t("trigger.body", { scheduleId })}
          submitLabel={t("trigger.submit")}
          onClose={onClose}
          onSubmit={() =>
            onSubmit({
              action: "trigger",
              scheduleId,
              overlapPolicy: policy === "" ? undefined : (policy as OverlapPolicy),
            })
          }
        >
          <PolicySelect value={policy} onChange={setPolicy} current={current} />
        </DialogForm>
      ) : null}
    </Dialog>
  );
}

function BackfillDialog({
  open,
  scheduleId,
  spec,
  onClose,
  onSubmit,
}: {
  open: boolean;
  scheduleId: string;
  spec: ScheduleSpec | null | undefined;
  onClose: () => void;
  onSubmit: (request: ScheduleActionRequest) => void;
}) {
  const t = useTranslations("schedules.actions");
  const time = useTimeFormat();
  const [start, setStart] = useState("");
  const [end, setEnd] = useState("");
  const [policy, setPolicy] = useState("");
  const [error, setError] = useState<string | null>(null);
  const startIso = utcIso(start);
  const endIso = utcIso(end);
  const valid = startIso !== null && endIso !== null && Date.parse(endIso) > Date.parse(startIso);
  const count = valid ? backfillFireCount(spec, Date.parse(startIso), Date.parse(endIso)) : null;
  return (
    <Dialog open={open} onClose={onClose} labelledBy="schedule-backfill-title">
      {open ? (
        <DialogForm
          id="backfill"
          title={t("backfill.title")}
          body={t("backfill.body", { scheduleId })}
          submitLabel={t("backfill.submit")}
          onClose={onClose}
          onSubmit={() => {
            if (!valid || startIso === null || endIso === null) return setError(t("backfill.rangeInvalid"));
            onSubmit({
              action: "backfill",
              scheduleId,
              startTime: startIso,
              endTime: endIso,
              overlapPolicy: policy === "" ? undefined : (policy as OverlapPolicy),
            });
          }}
        >
          <div className="grid gap-3 sm:grid-cols-2">
            <Field label={t("backfill.start")}>
              <input
                type="text"
                placeholder="YYYY-MM-DD HH:MM"
                spellCheck={false}
                className={inputClass}
                value={start}
                onChange={(e) => setStart(e.target.value)}
                data-testid="schedule-backfill-start"
              />
            </Field>
            <Field label={t("backfill.end")} error={error}>
              <input
                type="text"
                placeholder="YYYY-MM-DD HH:MM"
                spellCheck={false}
                className={inputClass}
                value={end}
                onChange={(e) => setEnd(e.target.value)}
                data-testid="schedule-backfill-end"
              />
            </Field>
          </div>
          <p className="text-xs text-fg-muted">{t("backfill.utc")}</p>
          <PolicySelect value={policy} onChange={setPolicy} />
          <p
            className="rounded-md bg-panel-muted px-3 py-2 text-sm"
            data-testid="schedule-backfill-count"
            aria-live="polite"
          >
            {count === null
              ? t("backfill.countPending")
              : count.more
                ? t("backfill.countMore", { count: count.count })
                : t("backfill.count", {
                    count: count.count,
                    first: count.first === null ? "–" : time.dateTime(count.first),
                    last: count.last === null ? "–" : time.dateTime(count.last),
                  })}
          </p>
        </DialogForm>
      ) : null}
    </Dialog>
  );
}

function DeleteDialog({
  open,
  scheduleId,
  onClose,
  onSubmit,
}: {
  open: boolean;
  scheduleId: string;
  onClose: () => void;
  onSubmit: (request: ScheduleActionRequest) => void;
}) {
  const t = useTranslations("schedules.actions");
  const [typed, setTyped] = useState("");
  const [error, setError] = useState<string | null>(null);
  const close = () => {
    setTyped("");
    setError(null);
    onClose();
  };
  return (
    <Dialog open={open} onClose={close} labelledBy="schedule-delete-title">
      {open ? (
        <DialogForm
          id="delete"
          danger
          title={t("delete.title")}
          body={t("delete.body", { scheduleId })}
          submitLabel={t("delete.submit")}
          onClose={close}
          onSubmit={() => {
            if (typed !== scheduleId) return setError(t("delete.mismatch"));
            onSubmit({ action: "delete", scheduleId, confirmId: typed });
            close();
          }}
        >
          <Field label={t("delete.type", { scheduleId })} error={error}>
            <input
              className={inputClass}
              value={typed}
              onChange={(e) => setTyped(e.target.value)}
              autoComplete="off"
              data-testid="schedule-delete-confirm"
            />
          </Field>
        </DialogForm>
      ) : null}
    </Dialog>
  );
}

/** What happened: sending, the server's refusal in its words, confirming, confirmed (with the run), or not seen yet. */
function ActionStatus({ namespace, state }: { namespace: string; state: ScheduleActionState }) {
  const t = useTranslations("schedules.actions.status");
  if (state.phase === "idle") return null;
  const tone =
    state.phase === "done"
      ? "text-ok"
      : state.phase === "error" || state.phase === "rejected"
        ? "text-bad"
        : "text-fg-muted";
  return (
    <div role="status" className={`text-sm ${tone}`} data-testid="schedule-action-status" data-phase={state.phase}>
      {state.phase === "sending" ? t("sending") : null}
      {state.phase === "error" ? t("error", { message: state.error.message }) : null}
      {state.phase === "rejected" ? t("rejected", { reason: state.answer.message ?? state.answer.reason ?? "" }) : null}
      {state.phase === "confirming" ? t("confirming", { outcome: state.answer.outcome ?? "" }) : null}
      {state.phase === "timed_out" ? t("timedOut", { waitingFor: state.waitingFor }) : null}
      {state.phase === "done" ? (
        <span data-outcome={state.answer.outcome ?? ""}>
          {state.confirmation.phase === "unchanged"
            ? t("unchanged", { outcome: state.answer.outcome ?? "", reason: state.answer.reason ?? "" })
            : t(`done.${state.answer.action}`, {
                outcome: state.answer.outcome ?? "",
                reason: state.answer.reason ? `: ${state.answer.reason}` : "",
                fires: state.answer.firesAttempted ?? 0,
                started: state.answer.firesStarted ?? 0,
              })}
          {state.answer.action === "trigger" && state.answer.workflowId && state.answer.runId ? (
            <Link
              className="ml-2 underline"
              href={runHref(namespace, state.answer.workflowId, state.answer.runId)}
              data-testid="schedule-triggered-run"
            >
              {t("openRun")}
            </Link>
          ) : null}
          {state.answer.action === "delete" ? (
            <Link className="ml-2 underline" href={screenHref(namespace, "schedules")}>
              {t("backToList")}
            </Link>
          ) : null}
        </span>
      ) : null}
    </div>
  );
}
