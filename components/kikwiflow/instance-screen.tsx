"use client";

import { useCallback, useMemo, useState } from "react";
import Link from "@/components/ui/link";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useTranslations } from "next-intl";
import type { ProcessInstance } from "@/lib/kikwiflow/schemas";
import type { RetryAnswer } from "@/lib/kikwiflow/retry-confirm";
import { followRetry } from "@/lib/kikwiflow/retry-follow";
import { orderIncidents } from "@/lib/kikwiflow/incident-view";
import {
  definitionText,
  kikwiflowEventsQuery,
  kikwiflowIncidentsQuery,
  kikwiflowInstanceKey,
  KikwiflowApiError,
  kikwiflowSnapshotQuery,
  retryKikwiflowIncident,
} from "@/lib/queries/kikwiflow";
import type { DefinitionLabel } from "@/lib/queries/kikwiflow";
import { KIKWIFLOW_HREF, kikwiflowDefinitionHref } from "@/lib/routes/route-for";
import { useTimeFormat } from "@/components/hooks/use-time-format";
import { StatusBadge } from "@/components/ui/status-badge";
import { AttemptsTrail } from "@/components/kikwiflow/attempts-trail";
import { EngineError } from "@/components/kikwiflow/engine-error";
import { IncidentsTable } from "@/components/kikwiflow/incidents-table";
import type { IncidentRow, RetryControl } from "@/components/kikwiflow/incidents-table";
import { activeNodeIds } from "@/components/kikwiflow/active-nodes";
import { RetryAlreadyDone, RetryOutcome } from "@/components/kikwiflow/retry-outcome";
import { TaskLedger } from "@/components/kikwiflow/task-ledger";
import { VariablesTable } from "@/components/kikwiflow/variables-table";
import { useActDisabledReason } from "@/components/kikwiflow/use-act-disabled-reason";
import { CancelInstance, CancelOutcome, useCancelInstance } from "@/components/kikwiflow/cancel-instance";
import { statusTone } from "@/components/kikwiflow/status-tone";

function InstanceHeader({ instance, definition }: { instance: ProcessInstance; definition: DefinitionLabel | null }) {
  const t = useTranslations("kikwiflow.instance");
  const time = useTimeFormat();
  const facts: [string, React.ReactNode][] = [
    [
      t("definition"),
      <span key="d" title={instance.processDefinitionId}>
        {definition?.name ? `${definition.name} · ` : ""}
        <Link
          href={kikwiflowDefinitionHref(instance.processDefinitionId)}
          className="font-mono text-xs text-accent hover:underline"
          data-testid="kikwiflow-instance-definition-link"
        >
          {definitionText(instance.processDefinitionId, definition)}
        </Link>
      </span>,
    ],
    [t("businessKey"), instance.businessKey ?? "–"],
    [
      t("status"),
      <StatusBadge key="s" status={statusTone(instance.status)}>
        {instance.status}
      </StatusBadge>,
    ],
    [t("started"), time.dateTime(instance.startedAt)],
    [t("ended"), time.dateTime(instance.endedAt)],
    [t("tenant"), instance.tenantId ?? "–"],
    [t("activeNodes"), activeNodeIds(instance.activeNodes).join(", ") || "–"],
  ];
  return (
    <dl
      className="grid grid-cols-[max-content_1fr] gap-x-4 gap-y-1 rounded-lg border border-line bg-panel p-4 text-sm sm:grid-cols-[max-content_1fr_max-content_1fr]"
      data-testid="kikwiflow-instance-header"
    >
      {facts.map(([label, value]) => (
        <div key={label} className="contents">
          <dt className="text-fg-muted">{label}</dt>
          <dd className="min-w-0 break-words">{value}</dd>
        </div>
      ))}
    </dl>
  );
}

function useRetry(instanceId: string) {
  const queryClient = useQueryClient();
  const [answer, setAnswer] = useState<Extract<RetryAnswer, { result: "accepted" }> | null>(null);
  const mutation = useMutation({
    mutationFn: (incidentId: string) => retryKikwiflowIncident(incidentId),
    onMutate: () => setAnswer(null),
    onSuccess: (result) => setAnswer(result.result === "accepted" ? result : null),
    onSettled: () => queryClient.invalidateQueries({ queryKey: kikwiflowInstanceKey(instanceId) }),
  });
  return { answer, mutation };
}

/** One Kikwiflow instance: header, task ledger with the retry-policy forecast, incidents, attempts trail. */
export function KikwiflowInstanceScreen({ instanceId }: { instanceId: string }) {
  const t = useTranslations("kikwiflow");
  const snapshot = useQuery(kikwiflowSnapshotQuery(instanceId));
  const incidents = useQuery(kikwiflowIncidentsQuery(instanceId));
  const events = useQuery(kikwiflowEventsQuery(instanceId));
  const { answer, mutation } = useRetry(instanceId);
  const cancel = useCancelInstance(instanceId);
  // Once the engine shows the instance gone, its last reads would only be stale.
  const cancelled = cancel.answer?.verdict.phase === "confirmed";
  const disabledReason = useActDisabledReason(t("incidents.needsOperator"));
  const onRetry = useCallback((id: string) => mutation.mutate(id), [mutation]);
  const retry: RetryControl = useMemo(
    () => ({ disabledReason, pendingId: mutation.isPending ? (mutation.variables ?? null) : null, onRetry }),
    [disabledReason, mutation.isPending, mutation.variables, onRetry],
  );
  const rows: IncidentRow[] = useMemo(() => {
    const tasks = snapshot.data?.executableTasks ?? [];
    // The instance's incidents list holds RESOLVED ones too; the snapshot only the open ones.
    const list = incidents.data ?? snapshot.data?.incidents ?? [];
    const lineages = events.data?.incidentLineages ?? [];
    const unordered = list.map((incident) => ({
      incident,
      task: tasks.find((task) => task.id === incident.executionId) ?? null,
      lineage: lineages.find((lineage) => lineage.incidentId === incident.id) ?? null,
    }));
    return orderIncidents(unordered);
  }, [snapshot.data, incidents.data, events.data]);

  return (
    <div className="space-y-4" data-testid="kikwiflow-instance">
      <p>
        <Link href={KIKWIFLOW_HREF} className="text-sm text-accent hover:underline">
          ← {t("instance.back")}
        </Link>
      </p>
      {answer ? <RetryOutcome answer={answer} followUp={followRetry(answer, incidents.data ?? [])} /> : null}
      {mutation.error instanceof KikwiflowApiError && mutation.error.status === 409 ? (
        <RetryAlreadyDone />
      ) : mutation.error ? (
        <EngineError error={mutation.error} />
      ) : null}
      <CancelOutcome handle={cancel} />
      {snapshot.error && !cancelled ? <EngineError error={snapshot.error} /> : null}
      {!snapshot.data && !snapshot.error ? <p className="text-sm text-fg-muted">{t("loading")}</p> : null}
      {snapshot.data && !cancelled ? (
        <>
          <InstanceHeader instance={snapshot.data.instance} definition={snapshot.data.definition} />
          <CancelInstance status={snapshot.data.instance.status} handle={cancel} />
          <TaskLedger tasks={snapshot.data.executableTasks} />
          <IncidentsTable rows={rows} retry={retry} />
          <VariablesTable instanceId={instanceId} variables={snapshot.data.instance.variables} />
          {events.error ? <EngineError error={events.error} /> : null}
          {events.data ? <AttemptsTrail trail={events.data} /> : null}
        </>
      ) : null}
    </div>
  );
}
