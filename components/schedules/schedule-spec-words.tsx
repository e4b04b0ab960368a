"use client";

import { useTranslations } from "next-intl";
import type { ScheduleSpec } from "@/lib/dw/schemas-schedules";
import { intervalUnit, specParts, specTimezone } from "@/lib/views/schedule-spec";
import { useCronWords } from "@/components/schedules/use-cron-words";

/**
 * A spec in the operator's language: each cron expression in words ("At 02:00, Monday through
 * Friday"), each interval as "every 15 min", then the time zone the server reads them in. An
 * expression the console cannot read is shown as written, never guessed at, and so is every
 * expression for the moment before the words have loaded (use-cron-words.ts).
 */
export function ScheduleSpecWords({
  spec,
  compact = false,
}: {
  spec: ScheduleSpec | null | undefined;
  compact?: boolean;
}) {
  const t = useTranslations("schedules.spec");
  const words = useCronWords();
  const parts = specParts(spec, words ?? undefined);
  if (parts.length === 0) return <span className="text-fg-muted">{t("none")}</span>;
  const zone = specTimezone(spec);
  return (
    <span className="inline-flex flex-col gap-0.5" data-testid="schedule-spec-words">
      {parts.map((part, i) => {
        if (part.kind === "cron")
          return (
            <span key={`c${i}`} title={part.expression}>
              {part.words ?? part.expression}
              {compact ? null : <code className="ml-2 text-xs text-fg-muted">{part.expression}</code>}
            </span>
          );
        if (part.seconds === null || part.seconds <= 0)
          return <span key={`i${i}`}>{t("unreadableInterval", { every: part.every })}</span>;
        const { count, unit } = intervalUnit(part.seconds);
        return (
          <span key={`i${i}`} title={part.every}>
            {t(`every.${unit}`, { count })}
            {part.offsetSeconds > 0 ? ` ${t("offset", { seconds: part.offsetSeconds })}` : null}
          </span>
        );
      })}
      <span className="text-xs text-fg-muted">{t("zone", { zone })}</span>
    </span>
  );
}
