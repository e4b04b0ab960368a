"use client";

import { useTranslations } from "next-intl";
import type { TimeRange } from "@/lib/queries/runs-scan";
import { TIME_RANGES } from "@/lib/queries/runs-scan";

const RANGES = Object.keys(TIME_RANGES) as TimeRange[];

/** "Started within": any time, or the last hour / day / week / month, applied as soon as it is picked. */
export function RunsRangeSelect({
  value,
  onChange,
}: {
  value: TimeRange | null;
  onChange: (range: TimeRange | null) => void;
}) {
  const t = useTranslations("runs");
  return (
    <label className="flex flex-col text-xs text-fg-muted">
      {t("filters.range")}
      <select
        value={value ?? ""}
        onChange={(event) => onChange((event.target.value || null) as TimeRange | null)}
        className="mt-1 h-8 rounded-md border border-line bg-panel px-2 text-sm text-fg"
        data-testid="runs-range"
      >
        <option value="">{t("ranges.all")}</option>
        {RANGES.map((range) => (
          <option key={range} value={range}>
            {t(`ranges.${range}`)}
          </option>
        ))}
      </select>
    </label>
  );
}
