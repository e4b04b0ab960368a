"use client";

import { memo } from "react";
import { useTranslations } from "next-intl";
import type { TimelineListRow } from "@/lib/views/timeline";
import { useTimeFormat } from "@/components/hooks/use-time-format";
import { Muted, Section } from "@/components/ui/section";

/** The newest events, newest first: what the run did last, before (or without) reading its history. */
export const LatestEvents = memo(function LatestEvents({
  rows,
  total,
}: {
  rows: readonly TimelineListRow[];
  total: number | null;
}) {
  const t = useTranslations("run.latest");
  const tv = useTranslations();
  const time = useTimeFormat();
  const newestFirst = [...rows].reverse();
  return (
    <Section
      title={t("title")}
      testId="latest-events"
      actions={
        total !== null && rows.length > 0 ? (
          <span className="text-xs text-fg-muted">{t("of", { count: rows.length, total })}</span>
        ) : null
      }
    >
      {rows.length === 0 ? (
        <Muted>{t("none")}</Muted>
      ) : (
        <ol className="max-h-56 divide-y divide-line overflow-y-auto text-xs" aria-label={t("title")} tabIndex={0}>
          {newestFirst.map((row) => (
            <li
              key={row.sequence}
              data-testid="latest-event"
              className={`flex items-center gap-3 py-1 ${row.failure ? "bg-bad/5" : ""}`}
            >
              <span className="w-12 shrink-0 text-right font-mono text-fg-muted">{row.sequence}</span>
              <span className="w-52 shrink-0 truncate font-mono">{row.type}</span>
              <span className="min-w-0 flex-1 truncate" title={tv(row.summary.id, row.summary.values)}>
                {tv(row.summary.id, row.summary.values)}
              </span>
              <span className="hidden w-56 shrink-0 text-fg-muted lg:inline">{time.dateTime(row.recordedAt)}</span>
            </li>
          ))}
        </ol>
      )}
    </Section>
  );
});
