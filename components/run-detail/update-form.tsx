"use client";

import { useState } from "react";
import type { FormEvent } from "react";
import { useQuery } from "@tanstack/react-query";
import { useTranslations } from "next-intl";
import type { UpdateWaitFor } from "@/lib/actions/update-action";
import { UPDATE_NAME_MAX } from "@/lib/actions/update-action";
import type { Capability } from "@/lib/views/capabilities";
import type { UpdateConfirmation } from "@/lib/confirm/update";
import { endpointQuery, endpointQueryKey } from "@/lib/queries/endpoint-query";
import { parseQueryArguments } from "@/lib/views/query-outcome";
import { declaredUpdateNames } from "@/lib/views/updates";
import { Button } from "@/components/ui/button";
import { NameAndArgsFields } from "@/components/run-detail/name-and-args-fields";
import type { UpdateForm, UpdateSendPhase } from "@/components/run-detail/use-update-send";

/** `WorkflowStarted` sits in the first few events: the Queries tab reads the same page under the same key. */
const STARTED_PAGE = 5;

function useDeclaredUpdates(namespace: string, workflowId: string, runId: string): string[] | null {
  const params = { workflowId, runId };
  const started = useQuery({
    ...endpointQuery(namespace, "getHistory", params, { page_size: STARTED_PAGE }),
    queryKey: [...endpointQueryKey(namespace, "getHistory", params), "started"],
    refetchInterval: false,
    staleTime: Infinity,
  });
  return declaredUpdateNames(started.data?.events ?? []);
}

/**
 * The send form: a name (offered from the updates `WorkflowStarted` declares, free text otherwise),
 * JSON arguments, and whether to wait for the handler. Disabled with the reason when the person,
 * the console or the run does not allow it (`updateCapability`).
 */
export function SendUpdateForm({
  namespace,
  workflowId,
  runId,
  capability,
  reason,
  phase,
  onSend,
}: {
  namespace: string;
  workflowId: string;
  runId: string;
  capability: Capability | null;
  /** The capability's reason in words, or null when allowed. */
  reason: string | null;
  phase: UpdateSendPhase;
  onSend: (form: UpdateForm) => void;
}) {
  const t = useTranslations("run.updates.form");
  const declared = useDeclaredUpdates(namespace, workflowId, runId);
  const [name, setName] = useState("");
  const [args, setArgs] = useState("");
  const [waitFor, setWaitFor] = useState<UpdateWaitFor>("completed");
  const [problem, setProblem] = useState<string | null>(null);
  const allowed = capability?.enabled === true;
  const sending = phase.kind === "sending" || (phase.kind === "answered" && phase.confirmation?.phase === "awaiting");

  function submit(event: FormEvent) {
    event.preventDefault();
    const updateName = name.trim();
    if (updateName === "") return setProblem(t("nameRequired"));
    const parsed = parseQueryArguments(args);
    if (!parsed.ok)
      return setProblem(parsed.problem === "not_json" ? t("argsNotJson", { detail: parsed.detail }) : t("argsNotList"));
    setProblem(null);
    onSend({ updateName, input: parsed.input ?? [], waitFor });
  }

  const names = declared ?? [];
  return (
    <form
      className="flex flex-col gap-3"
      onSubmit={submit}
      noValidate
      aria-label={t("title")}
      data-testid="update-form"
    >
      <h3 className="text-sm font-semibold text-fg">{t("title")}</h3>
      <fieldset disabled={!allowed} className="flex min-w-0 flex-col gap-3">
        <NameAndArgsFields
          catalog="run.updates.form"
          testId="update"
          name={name}
          onName={(value) => {
            setName(value);
            setProblem(null);
          }}
          args={args}
          onArgs={(value) => {
            setArgs(value);
            setProblem(null);
          }}
          names={names}
          fieldHint={names.length > 0 ? t("declaredHint") : t("noneHint")}
          argsInvalid={problem !== null && problem !== t("nameRequired")}
          nameMaxLength={UPDATE_NAME_MAX}
        />
        <WaitChoice waitFor={waitFor} onChange={setWaitFor} />
        <div className="flex flex-wrap items-center gap-3">
          <Button type="submit" variant="primary" size="sm" disabled={!allowed || sending} data-testid="update-send">
            {sending ? t("sending") : t("send")}
          </Button>
          {problem ? (
            <span role="alert" className="text-sm text-bad" data-testid="update-problem">
              {problem}
            </span>
          ) : null}
        </div>
      </fieldset>
      {reason ? (
        <p className="text-sm text-fg-muted" data-testid="update-disabled-reason">
          {t("disabled", { reason })}
        </p>
      ) : null}
      <SendOutcome phase={phase} />
    </form>
  );
}

function WaitChoice({ waitFor, onChange }: { waitFor: UpdateWaitFor; onChange: (value: UpdateWaitFor) => void }) {
  const t = useTranslations("run.updates.form");
  return (
    <fieldset className="flex flex-col gap-1 text-sm">
      <legend className="mb-1 font-medium text-fg">{t("waitFor")}</legend>
      {(["completed", "accepted"] as const).map((value) => (
        <label key={value} className="flex items-start gap-2 text-fg">
          <input
            type="radio"
            name="update-wait-for"
            value={value}
            checked={waitFor === value}
            onChange={() => onChange(value)}
            className="mt-1"
            data-testid={`update-wait-${value}`}
          />
          <span>{t(value === "completed" ? "waitCompleted" : "waitAccepted")}</span>
        </label>
      ))}
    </fieldset>
  );
}

/** The server's answer in words, then what history confirmed of it. */
function SendOutcome({ phase }: { phase: UpdateSendPhase }) {
  const t = useTranslations("run.updates.outcome");
  if (phase.kind !== "answered") return null;
  const { outcome, answer } = phase;
  return (
    <div
      role="status"
      className="flex flex-col gap-1 rounded-md border border-line px-3 py-2 text-sm"
      data-testid="update-outcome"
      data-kind={outcome.kind}
    >
      <p className={outcome.ok ? "text-fg" : "text-bad"}>
        {t(outcome.kind, { name: phase.name, status: outcome.httpStatus ?? "—", id: answer?.updateId ?? "—" })}
      </p>
      {outcome.detail ? (
        <p className="font-mono text-xs break-words text-fg-muted">{t("serverSaid", { detail: outcome.detail })}</p>
      ) : null}
      {phase.confirmation ? <ConfirmLine confirmation={phase.confirmation} readError={phase.readError} /> : null}
    </div>
  );
}

function ConfirmLine({ confirmation, readError }: { confirmation: UpdateConfirmation; readError: string | null }) {
  const t = useTranslations("run.updates.confirm");
  const step = confirmation.closed ?? confirmation.recorded;
  const values = {
    event: step?.eventType ?? "—",
    sequence: step?.sequence ?? 0,
    state: confirmation.historyStatus ?? "—",
    seconds: Math.round(confirmation.elapsedMs / 1000),
  };
  return (
    <p className="text-xs text-fg-muted" data-testid="update-confirm" data-phase={confirmation.phase}>
      {t(confirmation.phase, values)}
      {readError ? ` ${t("readError", { detail: readError })}` : null}
    </p>
  );
}
