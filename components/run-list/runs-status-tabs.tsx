"use client";

import { useTranslations } from "next-intl";
import { Button } from "@/components/ui/button";
import type { StatusTab } from "@/components/run-list/run-list-url-state";
import { STATUS_TABS } from "@/components/run-list/run-list-url-state";

/** All / running / completed / failed: one tab per status bucket. */
export function RunsStatusTabs({ current, onSelect }: { current: StatusTab; onSelect: (tab: StatusTab) => void }) {
  const t = useTranslations("runs");
  return (
    <div
      role="tablist"
      aria-label={t("statusTabs")}
      className="inline-flex rounded-md border border-line bg-panel p-0.5"
    >
      {STATUS_TABS.map((tab) => (
        <Button
          key={tab}
          variant="ghost"
          role="tab"
          aria-selected={current === tab}
          pressed={current === tab}
          onClick={() => onSelect(tab)}
        >
          {t(`tabs.${tab}`)}
        </Button>
      ))}
    </div>
  );
}
