"use client";

import { useCallback, useMemo, useState } from "react";
import { useTranslations } from "next-intl";
import { Button } from "@/components/ui/button";

/** Rows a long run-page list renders at first and adds per click: thousands at once would freeze the page. */
export const ROWS_PER_STEP = 50;

/** The first `first` rows of a long list, and a way to show `step` more. */
export function useShownRows<T>(
  rows: readonly T[],
  step: number = ROWS_PER_STEP,
  first: number = step,
): { shown: readonly T[]; more: () => void; hidden: number } {
  const [limit, setLimit] = useState(first);
  // Stable between renders, so a memoised list below does not redraw when its parent does.
  const shown = useMemo(() => (rows.length > limit ? rows.slice(0, limit) : rows), [rows, limit]);
  const more = useCallback(() => setLimit((current) => current + step), [step]);
  return { shown, more, hidden: rows.length - shown.length };
}

/** "Show 50 more (1,234 not shown)"; renders nothing once everything is shown. */
export function ShowMore({
  hidden,
  onMore,
  step = ROWS_PER_STEP,
  testId,
}: {
  hidden: number;
  onMore: () => void;
  step?: number;
  testId?: string;
}) {
  const t = useTranslations("run");
  if (hidden <= 0) return null;
  return (
    <Button size="xs" onClick={onMore} className="mt-2" data-testid={testId ?? "show-more"}>
      {t("showMore", { count: Math.min(step, hidden), hidden })}
    </Button>
  );
}
