"use client";

import { useState } from "react";
import { useTranslations } from "next-intl";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { endpointQuery } from "@/lib/queries/endpoint-query";
import { buildIdRows } from "@/lib/views/build-ids";
import type { BuildIdRow } from "@/lib/views/build-ids";
import { BUILD_ID_ACTIONS } from "@/lib/actions/build-id-rules";
import type { BuildIdAction, BuildIdRolloutRequest } from "@/lib/actions/build-id-rules";
import { useGuardRefusal } from "@/components/actions/use-guard-refusal";
import { isForbidden, Panel, RequiresAdmin } from "@/components/metrics/panel";
import { QueryState } from "@/components/dw/query-state";
import { Button } from "@/components/ui/button";
import { Dialog } from "@/components/ui/dialog";
import { Field, inputClass } from "@/components/ui/field";
import { useTimeFormat } from "@/components/hooks/use-time-format";
import { sendRollout } from "@/components/system/send-rollout";
import type { RolloutOutcome } from "@/components/system/send-rollout";

const STATUSES = ["active", "active_with_draining", "draining", "stale_only", "no_workers"] as const;
const DEPLOYMENT_STATES = ["pending", "active", "promoted", "draining", "drained", "rolled_back"] as const;

/** One of `list`, or null for a value a later server may add (shown as the server wrote it). */
function known<T extends string>(list: readonly T[], value: string): T | null {
  return (list as readonly string[]).includes(value) ? (value as T) : null;
}

const TONE_CLASS: Record<BuildIdRow["tone"], string> = {
  ok: "text-ok",
  warn: "text-warn",
  bad: "text-bad",
  muted: "text-fg-muted",
};

/**
 * A task queue's build ids (`GET /task-queues/{queue}/build-ids`): each cohort's rollout state and
 * worker counts; an admin promotes, drains or resumes one after confirming, and the change counts
 * only once the rollout read back shows it. Deployments are listed where the server has them.
 */
export function BuildIdsPanel({
  namespace,
  queues,
  openQueue,
}: {
  namespace: string;
  queues: string[];
  openQueue: string | null;
}) {
  const t = useTranslations("buildIds");
  const [picked, setPicked] = useState<string | null>(null);
  const queue = openQueue ?? (picked !== null && queues.includes(picked) ? picked : (queues[0] ?? null));
  return (
    <Panel title={t("title")} testId="build-ids">
      {queues.length === 0 ? (
        <p className="text-sm text-fg-muted">{t("noQueues")}</p>
      ) : (
        <>
          <div className="mb-3 max-w-xs">
            <Field label={t("queue")}>
              <select
                className={inputClass}
                value={queue ?? ""}
                data-testid="build-ids-queue"
                onChange={(e) => setPicked(e.target.value)}
                disabled={openQueue !== null}
              >
                {queues.map((name) => (
                  <option key={name} value={name}>
                    {name}
                  </option>
                ))}
              </select>
            </Field>
          </div>
          {queue !== null ? <QueueBuildIds key={queue} namespace={namespace} queue={queue} /> : null}
        </>
      )}
    </Panel>
  );
}

function QueueBuildIds({ namespace, queue }: { namespace: string; queue: string }) {
  const t = useTranslations("buildIds");
  const queryClient = useQueryClient();
  const options = endpointQuery(namespace, "taskQueueBuildIds", { name: queue });
  const deploymentsKey = endpointQuery(namespace, "listDeployments", {}).queryKey;
  const snapshot = useQuery(options);
  const [pending, setPending] = useState<BuildIdRolloutRequest | null>(null);
  const [outcome, setOutcome] = useState<RolloutOutcome | null>(null);
  const [busy, setBusy] = useState(false);
  const refusal = useGuardRefusal("admin", {
    checking: t("checking"),
    readOnly: t("readOnly"),
    token: (role) => t("tokenRole", { role }),
  });

  const confirm = async (change: BuildIdRolloutRequest) => {
    setPending(null);
    setBusy(true);
    // Confirmed by reading the rollout back, not by the answer alone.
    const result = await sendRollout(namespace, change, async () => {
      await queryClient.invalidateQueries({ queryKey: options.queryKey });
      return queryClient.fetchQuery(options);
    });
    // The deployments list shows the same rows as a lifecycle: read it again too.
    void queryClient.invalidateQueries({ queryKey: deploymentsKey });
    setOutcome(result);
    setBusy(false);
  };

  return (
    <div className="space-y-3">
      <ConfirmRollout pending={pending} onClose={() => setPending(null)} onConfirm={confirm} />
      <QueryState
        query={snapshot}
        isEmpty={(data) => data.build_ids.length === 0}
        empty={<p className="text-sm text-fg-muted">{t("none", { queue })}</p>}
        renderError={(error) => (isForbidden(error) ? <RequiresAdmin what={t("title")} /> : undefined)}
      >
        {(data) => (
          <CohortTable
            rows={buildIdRows(data)}
            refusal={refusal}
            busy={busy}
            onAction={(action, buildId) => setPending({ action, taskQueue: queue, buildId })}
          />
        )}
      </QueryState>
      {refusal ? (
        <p className="text-xs text-fg-muted" data-testid="build-ids-refusal">
          {refusal}
        </p>
      ) : null}
      <div role="status" aria-live="polite" data-testid="build-ids-outcome" className="text-sm">
        {outcome ? <OutcomeLine outcome={outcome} /> : null}
      </div>
      <Deployments namespace={namespace} queue={queue} />
    </div>
  );
}

function CohortTable({
  rows,
  refusal,
  busy,
  onAction,
}: {
  rows: BuildIdRow[];
  refusal: string | null;
  busy: boolean;
  onAction: (action: BuildIdAction, buildId: string | null) => void;
}) {
  const t = useTranslations("buildIds");
  const time = useTimeFormat();
  return (
    <div className="overflow-x-auto">
      <table className="w-full text-sm">
        <thead>
          <tr className="text-left text-xs text-fg-muted">
            <th className="py-1 pr-2 font-medium">{t("col.buildId")}</th>
            <th className="py-1 pr-2 font-medium">{t("col.state")}</th>
            <th className="py-1 pr-2 font-medium">{t("col.workers")}</th>
            <th className="hidden py-1 pr-2 font-medium md:table-cell">{t("col.runtimes")}</th>
            <th className="hidden py-1 pr-2 font-medium md:table-cell">{t("col.changed")}</th>
            <th className="py-1 text-right font-medium">{t("col.actions")}</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr
              key={row.key}
              className="border-t border-line/60 align-top"
              data-testid="build-id-row"
              data-build-id={row.buildId ?? ""}
              data-status={row.status}
            >
              <td className="py-1.5 pr-2 font-mono break-all">
                {row.buildId ?? <span className="font-sans text-fg-muted italic">{t("unversioned")}</span>}
                {row.selectedForNewStarts ? (
                  <span
                    className="ml-2 inline-block rounded bg-accent/15 px-1.5 py-0.5 font-sans text-xs whitespace-nowrap text-accent"
                    data-testid="new-starts"
                  >
                    {t("newStarts")}
                  </span>
                ) : null}
              </td>
              <td className={`py-1.5 pr-2 ${TONE_CLASS[row.tone]}`} data-testid="rollout-status">
                {((s) => (s ? t(`status.${s}`) : row.status))(known(STATUSES, row.status))}
                {row.conflicts.length > 0 ? (
                  <p className="text-xs text-warn">
                    {t("conflicts", { types: row.conflicts.map((c) => c.workflowType).join(", ") })}
                  </p>
                ) : null}
                {row.pendingMessage ? <p className="text-xs text-bad">{row.pendingMessage}</p> : null}
              </td>
              <td className="py-1.5 pr-2 text-xs" data-testid="worker-counts">
                {t("workers", {
                  active: row.activeWorkers,
                  draining: row.drainingWorkers,
                  stale: row.staleWorkers,
                })}
              </td>
              <td className="hidden py-1.5 pr-2 text-xs break-words md:table-cell">
                {[...row.runtimes, ...row.sdkVersions].join(" · ") || "–"}
              </td>
              <td className="hidden py-1.5 pr-2 text-xs md:table-cell">
                {row.drainedAt ? (
                  <p title={time.dateTime(row.drainedAt)}>{t("drainedAt", { at: time.compact(row.drainedAt) })}</p>
                ) : null}
                {row.promotedAt ? (
                  <p title={time.dateTime(row.promotedAt)}>{t("promotedAt", { at: time.compact(row.promotedAt) })}</p>
                ) : null}
                {row.rolledBackAt ? (
                  <p title={time.dateTime(row.rolledBackAt)}>
                    {t("rolledBackAt", { at: time.compact(row.rolledBackAt) })}
                  </p>
                ) : null}
                {!row.drainedAt && !row.promotedAt && !row.rolledBackAt ? "–" : null}
              </td>
              <td className="py-1.5 text-right">
                {BUILD_ID_ACTIONS.filter((action) => row.offers[action]).map((action) => (
                  <Button
                    key={action}
                    variant={action === "drain" ? "danger" : "secondary"}
                    className="mb-1 ml-1"
                    disabled={busy || refusal !== null}
                    title={refusal ?? undefined}
                    data-testid={`build-id-${action}`}
                    onClick={() => onAction(action, row.buildId)}
                  >
                    {t(`action.${action}`)}
                  </Button>
                ))}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function OutcomeLine({ outcome }: { outcome: RolloutOutcome }) {
  const t = useTranslations("buildIds");
  const label = (buildId: string | null) => buildId ?? t("unversioned");
  switch (outcome.kind) {
    case "confirmed":
      return <p className="text-ok">{t(`done.${outcome.action}`, { buildId: label(outcome.buildId) })}</p>;
    case "unconfirmed":
      return <p className="text-warn">{t("notConfirmed")}</p>;
    case "rejected":
      return <p className="text-bad">{t("rejected", { reason: outcome.reason, message: outcome.message })}</p>;
    case "failed":
      return <p className="text-bad">{t("failed", { message: outcome.message })}</p>;
  }
}

function ConfirmRollout({
  pending,
  onClose,
  onConfirm,
}: {
  pending: BuildIdRolloutRequest | null;
  onClose: () => void;
  onConfirm: (change: BuildIdRolloutRequest) => void;
}) {
  const t = useTranslations("buildIds");
  const buildId = pending ? (pending.buildId ?? t("unversioned")) : "";
  return (
    <Dialog open={pending !== null} onClose={onClose} labelledBy="confirm-rollout-title" testId="confirm-rollout">
      {pending ? (
        <div className="space-y-4 p-5">
          <h2 id="confirm-rollout-title" className="text-base font-semibold break-words">
            {t(`confirm.${pending.action}.title`, { buildId, queue: pending.taskQueue })}
          </h2>
          <p className="text-sm break-words">
            {t(`confirm.${pending.action}.body`, { buildId, queue: pending.taskQueue })}
          </p>
          <div className="flex justify-end gap-2">
            <Button variant="secondary" onClick={onClose}>
              {t("cancel")}
            </Button>
            <Button
              variant={pending.action === "drain" ? "danger" : "primary"}
              data-testid="confirm-rollout-send"
              onClick={() => onConfirm(pending)}
            >
              {t(`action.${pending.action}`)}
            </Button>
          </div>
        </div>
      ) : null}
    </Dialog>
  );
}

/** `GET /deployments` where the server has it (a 404 from an older server shows nothing). */
function Deployments({ namespace, queue }: { namespace: string; queue: string }) {
  const t = useTranslations("buildIds");
  const deployments = useQuery({ ...endpointQuery(namespace, "listDeployments", {}), retry: false });
  const rows = (deployments.data?.deployments ?? []).filter((d) => d.task_queue === queue);
  if (!deployments.data || rows.length === 0) return null;
  return (
    <div data-testid="deployments">
      <p className="mb-1 text-xs font-medium text-fg-muted">{t("deployments")}</p>
      <ul className="space-y-0.5 text-xs">
        {rows.map((d) => (
          <li key={d.name} className="break-all">
            <span className="font-mono">{d.name}</span> ·{" "}
            {((s) => (s ? t(`deploymentState.${s}`) : d.state))(known(DEPLOYMENT_STATES, d.state))}
          </li>
        ))}
      </ul>
    </div>
  );
}
