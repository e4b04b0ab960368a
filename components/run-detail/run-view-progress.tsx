"use client";

import { useTranslations } from "next-intl";
import type { RunViewData } from "@/lib/run-view/stream";
import { Button } from "@/components/ui/button";

/**
 * How far the run's history has been read ("12,000 of 50,000 events read"), and the failure with a
 * retry. The tabs that show export-only sections fetch them when opened and say so there.
 */
export function RunViewProgress({
  data,
  onRetry,
  knownTotal = null,
}: {
  data: RunViewData;
  onRetry: () => void;
  /** The event count before the stream says it (debug's last sequence), for the first paint. */
  knownTotal?: number | null;
}) {
  const t = useTranslations("run.progress");
  const state = data.status === "idle" ? "reading" : data.status;
  const total = data.total ?? knownTotal;
  const text =
    state === "error"
      ? t("error", { message: data.error?.message ?? "" })
      : state === "done"
        ? t("done", { count: total ?? data.read })
        : total === null
          ? t("readingUnknown", { read: data.read })
          : t("reading", { read: data.read, total });
  return (
    <div
      data-testid="run-view-progress"
      data-state={state}
      data-read={data.read}
      data-total={total ?? ""}
      role="status"
      className="flex flex-wrap items-center gap-x-3 gap-y-1 rounded-lg border border-line bg-panel px-4 py-2 text-sm"
    >
      {state === "reading" && total !== null && total > 0 ? (
        <progress className="h-1.5 w-32 accent-accent" max={total} value={Math.min(data.read, total)} />
      ) : null}
      <span className={state === "error" ? "text-bad" : state === "done" ? "text-fg-muted" : ""}>{text}</span>
      {state === "error" ? (
        <Button size="xs" onClick={onRetry} data-testid="run-view-retry">
          {t("retry")}
        </Button>
      ) : null}
      {data.tailError ? (
        <span className="text-xs text-warn">{t("tailError", { message: data.tailError.message })}</span>
      ) : null}
    </div>
  );
}
