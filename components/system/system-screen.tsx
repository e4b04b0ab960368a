"use client";

import { useMemo, useState } from "react";
import { useTranslations } from "next-intl";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import type {
  ActivityTimeoutPassReport,
  ActivityTimeoutStatus,
  RepairPassReport,
  RepairStatus,
} from "@/lib/dw/schemas-system";
import { activityTimeoutsQuery, repairStatusQuery } from "@/lib/queries/system";
import { invalidateAfterSystemPass } from "@/lib/queries/invalidate";
import type { ActionError } from "@/lib/actions/contract";
import { sendSystemPass } from "@/components/actions/send-action";
import { useGuardRefusal } from "@/components/actions/use-guard-refusal";
import { useActionWords } from "@/components/actions/use-action-words";
import { isForbidden, Panel, RequiresAdmin } from "@/components/metrics/panel";
import { Button } from "@/components/ui/button";
import { ConfirmPassDialog } from "@/components/system/confirm-pass-dialog";
import { RetentionPanel } from "@/components/system/retention-panel";
import type { PassKind } from "@/components/system/confirm-pass-dialog";
import { DataTable, dataColumns } from "@/components/ui/data-table";
import { QueryState } from "@/components/dw/query-state";
import { useTimeFormat } from "@/components/hooks/use-time-format";

type Scope = NonNullable<NonNullable<RepairStatus["candidates"]>["scopes"]>[number];
const scopeCol = dataColumns<Scope>();

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
  const queryClient = useQueryClient();
  const repair = useQuery(repairStatusQuery(namespace));
  const timeouts = useQuery(activityTimeoutsQuery(namespace));
  const [repairPass, setRepairPass] = useState<PassState<RepairPassReport>>({ kind: "idle" });
  const [timeoutPass, setTimeoutPass] = useState<PassState<ActivityTimeoutPassReport>>({ kind: "idle" });
  const [confirming, setConfirming] = useState<PassKind | null>(null);

  const refusal = useGuardRefusal("admin", {
    checking: t("checking"),
    readOnly: t("readOnly"),
    token: (role) => t("needsAdmin", { role }),
  });

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

  return (
    <div className="grid items-start gap-4 lg:grid-cols-2">
      <ConfirmPassDialog
        pass={confirming}
        namespace={namespace}
        candidates={
          confirming === "repair"
            ? (repair.data?.candidates?.total_candidates ?? null)
            : (timeouts.data?.expired_count ?? null)
        }
        onClose={() => setConfirming(null)}
        onConfirm={(pass) => {
          setConfirming(null);
          void (pass === "repair" ? runRepairPass() : runTimeoutPass());
        }}
      />
      <Panel title={t("repair.title")} testId="system-repair">
        <QueryState query={repair} renderError={forbiddenAs(t("repair.title"))}>
          {(data) => <RepairStatusView status={data} />}
        </QueryState>
        <PassButton
          label={t("repair.run")}
          running={repairPass.kind === "running"}
          refusal={refusal}
          onRun={() => setConfirming("repair")}
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
        <QueryState query={timeouts} renderError={forbiddenAs(t("timeouts.title"))}>
          {(data) => <TimeoutStatusView status={data} />}
        </QueryState>
        <PassButton
          label={t("timeouts.run")}
          running={timeoutPass.kind === "running"}
          refusal={refusal}
          onRun={() => setConfirming("timeouts")}
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

      <RetentionPanel namespace={namespace} refusal={refusal} />
    </div>
  );
}

/** A panel's "requires admin" on 403; other errors fall back to QueryState's DwErrorState. */
function forbiddenAs(what: string) {
  return function ForbiddenAs(error: unknown) {
    return isForbidden(error) ? <RequiresAdmin what={what} /> : undefined;
  };
}

function useScopeColumns() {
  const t = useTranslations("system");
  const time = useTimeFormat();
  return useMemo(
    () =>
      scopeCol.columns([
        scopeCol.accessor("scope_key", { header: () => t("repair.scope"), meta: { className: "font-mono" } }),
        scopeCol.accessor("existing_task_candidates", {
          header: () => t("repair.existing"),
          meta: { className: "tabular-nums" },
        }),
        scopeCol.accessor("missing_task_candidates", {
          header: () => t("repair.missing"),
          meta: { className: "tabular-nums" },
        }),
        scopeCol.display({
          id: "maxAge",
          header: () => t("repair.maxAge"),
          cell: ({ row }) =>
            time.duration(
              Math.max(row.original.max_task_candidate_age_ms ?? 0, row.original.max_missing_run_age_ms ?? 0),
            ),
        }),
      ]),
    [t, time],
  );
}

/** Repair candidates (with their scopes) and the repair policy. */
function RepairStatusView({ status }: { status: RepairStatus }) {
  const t = useTranslations("system");
  const time = useTimeFormat();
  const scopeColumns = useScopeColumns();
  const { candidates, policy } = status;
  return (
    <>
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
            <DataTable
              columns={scopeColumns}
              data={candidates.scopes}
              getRowId={(scope) => scope.scope_key}
              caption={t("repair.scopes")}
              className="mt-3"
            />
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
    </>
  );
}

function TimeoutStatusView({ status }: { status: ActivityTimeoutStatus }) {
  const t = useTranslations("system");
  return (
    <dl>
      <Row label={t("timeouts.expired")} value={status.expired_count} testId="timeouts-expired" />
      <Row label={t("timeouts.scanLimit")} value={status.scan_limit} />
      <Row label={t("repair.pressure")} value={status.scan_pressure ? t("yes") : t("no")} />
      {status.expired_execution_ids.length ? (
        <Row label={t("timeouts.ids")} value={status.expired_execution_ids.slice(0, 5).join(", ")} />
      ) : null}
    </dl>
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
      <Button
        variant="primary"
        data-testid={testId}
        disabled={running || refusal !== null}
        onClick={onRun}
        title={refusal ?? undefined}
      >
        {running ? t("running") : label}
      </Button>
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
