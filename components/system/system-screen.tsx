"use client";

import { useState } from "react";
import { useTranslations } from "next-intl";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import type { ActivityTimeoutPassReport, RepairPassReport } from "@/lib/dw/schemas-system";
import { activityTimeoutsQuery, repairStatusQuery } from "@/lib/queries/system";
import { invalidateAfterSystemPass } from "@/lib/queries/invalidate";
import type { ActionError } from "@/components/actions/action-api";
import { sendSystemPass } from "@/components/actions/send-action";
import { useActionContext } from "@/components/actions/use-action-context";
import { useActionWords } from "@/components/actions/use-action-words";
import { isForbidden, Panel, RequiresAdmin } from "@/components/metrics/panel";
import { toErrorInfo } from "@/lib/views/error-info";
import { useTimeFormat } from "@/components/hooks/use-time-format";

type PassState<R> =
  | { kind: "idle" }
  | { kind: "running" }
  | { kind: "done"; status: number; report: R }
  | { kind: "failed"; error: ActionError };

function Row({
  label,
  value,
  testId,
}: {
  label: string;
  value: string | number | boolean | null | undefined;
  testId?: string;
}) {
  return (
    <div className="flex justify-between gap-4 border-b border-line/60 py-1 text-sm last:border-0">
      <dt className="text-fg-muted">{label}</dt>
      <dd className="font-mono tabular-nums" data-testid={testId}>
        {value === null || value === undefined ? "–" : String(value)}
      </dd>
    </div>
  );
}

/** Repair policy and candidates, the repair pass, and activity timeouts (server-api §2.9; admin). */
export function SystemScreen({ namespace }: { namespace: string }) {
  const t = useTranslations("system");
  const words = useActionWords();
  const time = useTimeFormat();
  const queryClient = useQueryClient();
  const context = useActionContext();
  const repair = useQuery(repairStatusQuery(namespace));
  const timeouts = useQuery(activityTimeoutsQuery(namespace));
  const [repairPass, setRepairPass] = useState<PassState<RepairPassReport>>({ kind: "idle" });
  const [timeoutPass, setTimeoutPass] = useState<PassState<ActivityTimeoutPassReport>>({ kind: "idle" });

  const refusal = !context.known
    ? t("checking")
    : context.readOnly
      ? t("readOnly")
      : context.role !== null && context.role !== "admin"
        ? t("needsAdmin", { role: context.role })
        : null;

  const runRepairPass = async () => {
    setRepairPass({ kind: "running" });
    const result = await sendSystemPass(namespace, "repair-pass");
    if (!result.ok) return setRepairPass({ kind: "failed", error: result.error });
    setRepairPass({ kind: "done", status: result.status, report: result.report });
    void invalidateAfterSystemPass(queryClient, namespace);
  };
  const runTimeoutPass = async () => {
    setTimeoutPass({ kind: "running" });
    const result = await sendSystemPass(namespace, "activity-timeout-pass");
    if (!result.ok) return setTimeoutPass({ kind: "failed", error: result.error });
    setTimeoutPass({ kind: "done", status: result.status, report: result.report });
    void invalidateAfterSystemPass(queryClient, namespace);
  };

  const candidates = repair.data?.candidates;
  const policy = repair.data?.policy;
  return (
    <div className="grid items-start gap-4 lg:grid-cols-2">
      <Panel title={t("repair.title")} testId="system-repair">
        {repair.isError ? (
          isForbidden(repair.error) ? (
            <RequiresAdmin what={t("repair.title")} />
          ) : (
            <p className="text-sm text-bad">{toErrorInfo(repair.error).message}</p>
          )
        ) : null}
        {candidates ? (
          <>
            <h3 className="text-sm font-semibold">{t("repair.candidates")}</h3>
            <dl className="mt-1">
              <Row label={t("repair.existing")} value={candidates.existing_task_candidates} />
              <Row label={t("repair.missing")} value={candidates.missing_task_candidates} />
              <Row label={t("repair.total")} value={candidates.total_candidates} testId="repair-total" />
              <Row label={t("repair.selected")} value={candidates.selected_total_candidates} />
              <Row
                label={t("repair.oldestTask")}
                value={
                  candidates.oldest_task_candidate_created_at
                    ? time.dateTime(candidates.oldest_task_candidate_created_at)
                    : null
                }
              />
              <Row
                label={t("repair.oldestMissing")}
                value={
                  candidates.oldest_missing_run_started_at
                    ? time.dateTime(candidates.oldest_missing_run_started_at)
                    : null
                }
              />
              <Row label={t("repair.pressure")} value={candidates.scan_pressure ? t("yes") : t("no")} />
            </dl>
            {candidates.scopes?.length ? (
              <table className="mt-3 w-full text-left text-xs">
                <caption className="mb-1 text-left text-fg-muted">{t("repair.scopes")}</caption>
                <thead>
                  <tr className="text-fg-muted">
                    <th className="py-1 font-medium">{t("repair.scope")}</th>
                    <th className="font-medium">{t("repair.existing")}</th>
                    <th className="font-medium">{t("repair.missing")}</th>
                    <th className="font-medium">{t("repair.maxAge")}</th>
                  </tr>
                </thead>
                <tbody>
                  {candidates.scopes.map((scope) => (
                    <tr key={scope.scope_key} className="border-t border-line/60">
                      <td className="py-1 font-mono">{scope.scope_key}</td>
                      <td className="tabular-nums">{scope.existing_task_candidates}</td>
                      <td className="tabular-nums">{scope.missing_task_candidates}</td>
                      <td>
                        {time.duration(
                          Math.max(scope.max_task_candidate_age_ms ?? 0, scope.max_missing_run_age_ms ?? 0),
                        )}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            ) : null}
          </>
        ) : null}
        {policy ? (
          <>
            <h3 className="mt-4 text-sm font-semibold">{t("repair.policy")}</h3>
            <dl className="mt-1">
              <Row label={t("repair.redispatchAfter")} value={`${policy.redispatch_after_seconds} s`} />
              <Row label={t("repair.throttle")} value={`${policy.loop_throttle_seconds} s`} />
              <Row label={t("repair.scanLimit")} value={policy.scan_limit} />
              <Row label={t("repair.strategy")} value={policy.scan_strategy} />
              <Row label={t("repair.backoffMax")} value={`${policy.failure_backoff_max_seconds} s`} />
            </dl>
          </>
        ) : null}
        <PassButton
          label={t("repair.run")}
          running={repairPass.kind === "running"}
          refusal={refusal}
          onRun={() => void runRepairPass()}
          testId="repair-pass"
        />
        <div role="status" aria-live="polite" data-testid="repair-pass-result">
          {repairPass.kind === "failed" ? (
            <p className="mt-2 text-sm text-bad">
              {words.error(repairPass.error)}{" "}
              <span className="block font-mono text-xs text-fg-muted">{repairPass.error.message}</span>
            </p>
          ) : null}
          {repairPass.kind === "done" ? <RepairReport status={repairPass.status} report={repairPass.report} /> : null}
        </div>
      </Panel>

      <Panel title={t("timeouts.title")} testId="system-timeouts">
        {timeouts.isError ? (
          isForbidden(timeouts.error) ? (
            <RequiresAdmin what={t("timeouts.title")} />
          ) : (
            <p className="text-sm text-bad">{toErrorInfo(timeouts.error).message}</p>
          )
        ) : null}
        {timeouts.data ? (
          <dl>
            <Row label={t("timeouts.expired")} value={timeouts.data.expired_count} testId="timeouts-expired" />
            <Row label={t("timeouts.scanLimit")} value={timeouts.data.scan_limit} />
            <Row label={t("repair.pressure")} value={timeouts.data.scan_pressure ? t("yes") : t("no")} />
            {timeouts.data.expired_execution_ids.length ? (
              <Row label={t("timeouts.ids")} value={timeouts.data.expired_execution_ids.slice(0, 5).join(", ")} />
            ) : null}
          </dl>
        ) : null}
        <PassButton
          label={t("timeouts.run")}
          running={timeoutPass.kind === "running"}
          refusal={refusal}
          onRun={() => void runTimeoutPass()}
          testId="timeout-pass"
        />
        <div role="status" aria-live="polite">
          {timeoutPass.kind === "failed" ? (
            <p className="mt-2 text-sm text-bad">{words.error(timeoutPass.error)}</p>
          ) : null}
          {timeoutPass.kind === "done" ? (
            <div className="mt-2 text-sm" data-testid="timeout-pass-result">
              <p className={timeoutPass.status === 207 ? "text-warn" : "text-ok"}>
                {t("timeouts.report", {
                  status: timeoutPass.status,
                  processed: timeoutPass.report.processed,
                  enforced: timeoutPass.report.enforced,
                  skipped: timeoutPass.report.skipped,
                  failed: timeoutPass.report.failed,
                })}
              </p>
              <ul className="mt-1 space-y-0.5 font-mono text-xs">
                {timeoutPass.report.results.map((result) => (
                  <li key={result.execution_id} className={result.outcome === "error" ? "text-bad" : undefined}>
                    {result.execution_id}: {result.outcome}
                    {result.reason ? ` — ${result.reason}` : ""}
                  </li>
                ))}
              </ul>
            </div>
          ) : null}
        </div>
      </Panel>
    </div>
  );
}

function PassButton({
  label,
  running,
  refusal,
  onRun,
  testId,
}: {
  label: string;
  running: boolean;
  refusal: string | null;
  onRun: () => void;
  testId: string;
}) {
  const t = useTranslations("system");
  return (
    <div className="mt-4 flex flex-wrap items-center gap-3">
      <button
        type="button"
        data-testid={testId}
        disabled={running || refusal !== null}
        onClick={onRun}
        title={refusal ?? undefined}
        className="rounded-md bg-accent px-3 py-1.5 text-sm font-medium text-accent-fg disabled:cursor-not-allowed disabled:opacity-50"
      >
        {running ? t("running") : label}
      </button>
      {refusal ? <span className="text-xs text-fg-muted">{refusal}</span> : null}
    </div>
  );
}

function RepairReport({ status, report }: { status: number; report: RepairPassReport }) {
  const t = useTranslations("system.repair");
  const failures = [
    ...report.existing_task_failures.map((item) => ({ id: item.candidate_id ?? "?", message: item.message ?? "" })),
    ...report.missing_run_failures.map((item) => ({ id: item.run_id ?? "?", message: item.message ?? "" })),
    ...(report.deadline_expired_failures ?? []).map((item) => ({
      id: item.run_id ?? "?",
      message: item.message ?? "",
    })),
    ...(report.activity_timeout_failures ?? []).map((item) => ({
      id: item.execution_id ?? "?",
      message: item.message ?? "",
    })),
  ];
  return (
    <div className="mt-2 text-sm" data-testid="repair-report" data-status={status}>
      <p className={status === 207 ? "text-warn" : "text-ok"}>{status === 207 ? t("partial") : t("ok")}</p>
      <dl className="mt-1">
        <Row label={t("selectedByPass")} value={report.selected_total_candidates} />
        <Row label={t("repairedExisting")} value={report.repaired_existing_tasks} />
        <Row label={t("repairedMissing")} value={report.repaired_missing_tasks} testId="repaired-missing" />
        <Row label={t("dispatched")} value={report.dispatched_tasks} />
        <Row label={t("deadlines")} value={report.deadline_expired_tasks_created ?? 0} />
        <Row label={t("timeoutsEnforced")} value={report.activity_timeouts_enforced ?? 0} />
      </dl>
      {failures.length ? (
        <ul className="mt-2 space-y-0.5 font-mono text-xs text-bad" data-testid="repair-failures">
          {failures.map((failure, index) => (
            <li key={`${failure.id}-${index}`}>
              {failure.id}: {failure.message}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
