"use client";

import { useMemo, useState } from "react";
import { useTranslations } from "next-intl";
import type { DerivedWait } from "@/lib/views/run-derivation";
import { waitDue } from "@/lib/views/waits-due";
import { useTicker, useTimeFormat } from "@/components/hooks/use-time-format";
import { Button } from "@/components/ui/button";
import { DataTable, dataColumns } from "@/components/ui/data-table";
import { Muted } from "@/components/ui/section";
import { ShowMore, useShownRows } from "@/components/ui/show-more";
import { StatusBadge } from "@/components/ui/status-badge";
import { ExportExtras, Heading, NOWRAP, cellText, exportWaits } from "@/components/run-detail/export-extras";
import type { RunTabData, RunTabProps } from "@/components/run-detail/run-tab-registry";

/** A wait row: derived from history (`DerivedWait`) or the server's projection in the export. */
type Wait = Pick<DerivedWait, "id" | "kind" | "status"> &
  Partial<
    Pick<DerivedWait, "summary" | "summary_message" | "target_name" | "opened_at" | "deadline_at" | "resolved_at">
  >;
const waitCol = dataColumns<Wait>();

const WAIT_KINDS = new Set(["activity", "timer", "signal", "condition", "update", "child"]);

/** A wait kind in words; a kind the console does not know stays the server's code. */
function WaitKind({ kind }: { kind: string }) {
  const t = useTranslations("run.waits.kinds");
  if (!WAIT_KINDS.has(kind)) return <span data-code="">{kind}</span>;
  return <>{t(kind as "activity")}</>;
}

/** A derived wait's summary in the chosen language; the export's waits carry the engine's English. */
function WaitSummaryText({ wait }: { wait: Wait }) {
  const t = useTranslations("run.waits.summaries");
  if (wait.summary_message) return <>{t(wait.summary_message.key, wait.summary_message.values)}</>;
  return <>{cellText(wait.summary ?? wait.target_name)}</>;
}

/** A wait's deadline in the chosen zone; an open wait past it says how late it is (its own clock). */
function WaitDeadline({ wait }: { wait: Wait }) {
  const t = useTranslations("run.waits");
  const time = useTimeFormat();
  const now = useTicker(15_000);
  const due = wait.status === "open" ? waitDue({ waits: [wait] }, now) : null;
  return (
    <>
      {time.dateTime(wait.deadline_at)}
      {due?.overdueMs ? (
        <span className="block text-xs font-medium text-bad" data-testid="wait-overdue">
          {t("overdue", { late: time.duration(due.overdueMs) })}
        </span>
      ) : null}
    </>
  );
}

function useWaitColumns() {
  const t = useTranslations("run.waits");
  const time = useTimeFormat();
  return useMemo(
    () =>
      waitCol.columns([
        waitCol.accessor("kind", { header: () => t("kind"), cell: (info) => <WaitKind kind={info.getValue()} /> }),
        waitCol.accessor("status", {
          header: () => t("status"),
          cell: (info) => <StatusBadge status={info.getValue()} />,
        }),
        waitCol.display({
          id: "summary",
          header: () => t("summary"),
          cell: ({ row }) => <WaitSummaryText wait={row.original} />,
        }),
        waitCol.accessor("opened_at", {
          header: () => t("opened"),
          cell: (info) => time.dateTime(info.getValue()),
          meta: NOWRAP,
        }),
        waitCol.accessor("deadline_at", {
          header: () => t("deadline"),
          cell: ({ row }) => <WaitDeadline wait={row.original} />,
          meta: NOWRAP,
        }),
        waitCol.accessor("resolved_at", {
          header: () => t("resolved"),
          cell: (info) => time.dateTime(info.getValue()),
          meta: NOWRAP,
        }),
      ]),
    [t, time],
  );
}

export function WaitsTable({ waits, testId = "waits-table" }: { waits: readonly Wait[]; testId?: string }) {
  const t = useTranslations("run.waits");
  const columns = useWaitColumns();
  const { shown, more, hidden } = useShownRows(waits);
  if (waits.length === 0) return <Muted>{t("none")}</Muted>;
  return (
    <div>
      <DataTable columns={columns} data={shown} getRowId={(wait) => wait.id} testId={testId} />
      <ShowMore hidden={hidden} onMore={more} testId="waits-show-more" />
    </div>
  );
}

/** Waits derived from history at once (once the whole history is read); the server's projection (export) on request. */
export function WaitsTab({ summary, ...run }: RunTabProps & Pick<RunTabData, "summary">) {
  const t = useTranslations("run.waits");
  const tf = useTranslations("run.extrasFields");
  const [projected, setProjected] = useState(false);
  const waits = summary.snapshot?.waits ?? null;
  return (
    <div className="space-y-4">
      <div>
        <p className="mb-2 text-xs text-fg-muted" data-testid="waits-derived">
          {t("derived")}
        </p>
        {waits ? <WaitsTable waits={waits} /> : <Muted>{t("none")}</Muted>}
      </div>
      {projected ? (
        <div>
          <Heading>{t("projected")}</Heading>
          <ExportExtras {...run} fields={tf("waits")}>
            {(extras) => <WaitsTable waits={exportWaits(extras)} testId="projected-waits-table" />}
          </ExportExtras>
        </div>
      ) : (
        <Button size="xs" onClick={() => setProjected(true)} data-testid="show-projected-waits">
          {t("showProjected")}
        </Button>
      )}
    </div>
  );
}
