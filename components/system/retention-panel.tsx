"use client";

import { useState } from "react";
import { useTranslations } from "next-intl";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import type { RetentionPassReport, RetentionStatus } from "@/lib/dw/schemas-namespaces";
import { retentionStatusQuery } from "@/lib/queries/system";
import { invalidateAfterSystemPass } from "@/lib/queries/invalidate";
import { checkRetentionPass } from "@/lib/views/namespaces";
import type { RetentionPassCheck } from "@/lib/views/namespaces";
import type { ActionError } from "@/lib/actions/contract";
import { sendSystemPass } from "@/components/actions/send-action";
import { useActionWords } from "@/components/actions/use-action-words";
import { isForbidden, Panel, RequiresAdmin } from "@/components/metrics/panel";
import { Button } from "@/components/ui/button";
import { ConfirmPassDialog } from "@/components/system/confirm-pass-dialog";
import { QueryState } from "@/components/dw/query-state";
import { useTimeFormat } from "@/components/hooks/use-time-format";

type PassState =
  | { kind: "idle" }
  | { kind: "running" }
  | { kind: "done"; status: number; report: RetentionPassReport; check: RetentionPassCheck | null }
  | { kind: "failed"; error: ActionError };

function Row({ label, value, testId }: { label: string; value: string | number; testId?: string }) {
  return (
    <div className="flex justify-between gap-4 border-b border-line/60 py-1 text-sm last:border-0">
      <dt className="text-fg-muted">{label}</dt>
      <dd className="text-right font-mono tabular-nums break-all" data-testid={testId}>
        {value}
      </dd>
    </div>
  );
}

/**
 * History retention of the page's namespace (SystemController::retentionStatus / retentionEnforcePass,
 * admin): the cutoff and what is past it, and the pass, confirmed by reading the status again — a
 * pruned run must no longer be listed as expired.
 */
export function RetentionPanel({ namespace, refusal }: { namespace: string; refusal: string | null }) {
  const t = useTranslations("system.retention");
  const yesNo = useTranslations("system");
  const words = useActionWords();
  const queryClient = useQueryClient();
  const time = useTimeFormat();
  const options = retentionStatusQuery(namespace);
  const status = useQuery(options);
  const [pass, setPass] = useState<PassState>({ kind: "idle" });
  const [confirming, setConfirming] = useState(false);

  const run = async () => {
    setConfirming(false);
    setPass({ kind: "running" });
    const result = await sendSystemPass(namespace, "retention-pass");
    if (!result.ok) return setPass({ kind: "failed", error: result.error });
    await invalidateAfterSystemPass(queryClient, namespace);
    let after: RetentionStatus | null = null;
    try {
      after = await queryClient.fetchQuery(options);
    } catch {
      after = null;
    }
    setPass({
      kind: "done",
      status: result.status,
      report: result.report,
      check: after ? checkRetentionPass(result.report, after) : null,
    });
  };

  return (
    <Panel title={t("title")} testId="system-retention">
      <ConfirmPassDialog
        pass={confirming ? "retention" : null}
        namespace={namespace}
        candidates={status.data?.expired_run_count ?? null}
        onClose={() => setConfirming(false)}
        onConfirm={() => void run()}
      />
      <QueryState
        query={status}
        renderError={(error) => (isForbidden(error) ? <RequiresAdmin what={t("title")} /> : undefined)}
      >
        {(data) => (
          <dl>
            <Row label={t("namespace")} value={data.namespace} />
            <Row label={t("days")} value={t("daysValue", { count: data.retention_days })} testId="retention-days" />
            <Row label={t("cutoff")} value={time.dateTime(data.cutoff)} />
            <Row label={t("expired")} value={data.expired_run_count} testId="retention-expired" />
            <Row label={t("scanLimit")} value={data.scan_limit} />
            <Row label={t("pressure")} value={data.scan_pressure ? yesNo("yes") : yesNo("no")} />
            {data.expired_run_ids.length ? (
              <Row label={t("ids")} value={data.expired_run_ids.slice(0, 3).join(", ")} />
            ) : null}
          </dl>
        )}
      </QueryState>
      <div className="mt-4 flex flex-wrap items-center gap-3">
        <Button
          variant="primary"
          data-testid="retention-pass"
          disabled={pass.kind === "running" || refusal !== null}
          onClick={() => setConfirming(true)}
          title={refusal ?? undefined}
        >
          {pass.kind === "running" ? yesNo("running") : t("run")}
        </Button>
        {refusal ? <span className="text-xs text-fg-muted">{refusal}</span> : null}
      </div>
      <div role="status" aria-live="polite">
        {pass.kind === "failed" ? <p className="mt-2 text-sm text-bad">{words.error(pass.error)}</p> : null}
        {pass.kind === "done" ? <PassReport status={pass.status} report={pass.report} check={pass.check} /> : null}
      </div>
    </Panel>
  );
}

function PassReport({
  status,
  report,
  check,
}: {
  status: number;
  report: RetentionPassReport;
  check: RetentionPassCheck | null;
}) {
  const t = useTranslations("system.retention");
  return (
    <div className="mt-2 text-sm" data-testid="retention-pass-result" data-status={status}>
      <p className={status === 207 ? "text-warn" : "text-ok"}>
        {t("report", {
          status,
          processed: report.processed,
          pruned: report.pruned,
          skipped: report.skipped,
          failed: report.failed,
        })}
      </p>
      <p
        className={check === null || !check.confirmed ? "text-warn" : "text-fg-muted"}
        data-testid="retention-confirmation"
      >
        {check === null
          ? t("unconfirmed")
          : check.confirmed
            ? t("confirmed", { count: check.prunedRunIds.length })
            : t("stillExpired", { ids: check.stillExpired.join(", ") })}
      </p>
      {report.results.length ? (
        <ul className="mt-1 space-y-0.5 font-mono text-xs">
          {report.results.slice(0, 20).map((result, index) => (
            <li
              key={`${result.run_id ?? "?"}-${index}`}
              className={result.outcome === "error" ? "text-bad" : undefined}
            >
              {result.run_id ?? "?"}: {result.outcome}
              {result.reason ? ` — ${result.reason}` : ""}
              {typeof result.history_events_deleted === "number"
                ? ` (${t("eventsDeleted", { count: result.history_events_deleted })})`
                : ""}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
