"use client";

import { useTranslations } from "next-intl";
import { Button } from "@/components/ui/button";
import type { StatusTab } from "@/components/run-list/run-list-url-state";
import { STATUS_TABS } from "@/components/run-list/run-list-url-state";
import type { TabCount } from "@/lib/views/run-row-counts";

/**
 * All / running / completed / failed: one tab per status bucket the server's list filter accepts
 * (`in:running,completed,failed`), each with how many runs it holds where that is known.
 */
export function RunsStatusTabs({
  current,
  counts,
  onSelect,
}: {
  current: StatusTab;
  counts: Readonly<Record<StatusTab, TabCount>>;
  onSelect: (tab: StatusTab) => void;
}) {
  const t = useTranslations("runs");
  return (
    <div
      role="tablist"
      aria-label={t("statusTabs")}
      className="inline-flex flex-wrap rounded-md border border-line bg-panel p-0.5"
    >
      {STATUS_TABS.map((tab) => {
        const count = counts[tab];
        return (
          <Button
            key={tab}
            variant="ghost"
            role="tab"
            aria-selected={current === tab}
            pressed={current === tab}
            data-testid={`runs-tab-${tab}`}
            onClick={() => onSelect(tab)}
          >
            {t(`tabs.${tab}`)}
            {count ? (
              <span
                data-testid="runs-tab-count"
                data-count={"exact" in count ? count.exact : count.atLeast}
                data-exact={"exact" in count}
                className="ml-1.5 rounded-full bg-panel-muted px-1.5 text-xs text-fg-muted tabular-nums"
              >
                {"exact" in count
                  ? t("tabCount", { count: count.exact })
                  : t("tabCountAtLeast", { count: count.atLeast })}
              </span>
            ) : null}
          </Button>
        );
      })}
    </div>
  );
}
