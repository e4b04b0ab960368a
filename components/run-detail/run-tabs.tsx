"use client";

import { useRef } from "react";
import type { KeyboardEvent, ReactNode } from "react";
import { useTranslations } from "next-intl";
import { earlyTabProps } from "@/components/hooks/use-early-tab";
import { Button } from "@/components/ui/button";
import type { RunTab } from "@/components/run-detail/run-tab-registry";
import { RUN_TABS } from "@/components/run-detail/run-tab-registry";
import { shortcutAction } from "@/lib/shortcuts/registry";

/** The one panel the run tabs control; only the selected tab's content is in it. */
export const RUN_TAB_PANEL_ID = "run-tab-panel";
const tabId = (tab: RunTab) => `run-tab-${tab}`;

/** The tab an arrow, Home or End key moves to from `current` (wrapping at the ends), or null for other keys. */
export function tabKeyTarget(key: string, current: RunTab): RunTab | null {
  const at = RUN_TABS.findIndex((entry) => entry.id === current);
  const last = RUN_TABS.length - 1;
  // The keys come from the shortcut registry, which the `?` sheet lists.
  const action = shortcutAction("runTabs", key);
  const index =
    action === "nextTab"
      ? at === last
        ? 0
        : at + 1
      : action === "previousTab"
        ? at === 0
          ? last
          : at - 1
        : action === "firstTab"
          ? 0
          : action === "lastTab"
            ? last
            : null;
  return index === null ? null : (RUN_TABS[index]?.id ?? null);
}

/**
 * The run's tabs (in registry order) as a WAI-ARIA tab list: one tab in the Tab order (roving tabindex), ←/→ move and
 * select with wrap-around, Home/End go to the ends (automatic activation: a panel opens deferred, so
 * moving through the tabs stays quick). Each tab keeps its early-click attribute (decision 0018).
 */
export function RunTabs({ selected, onSelect }: { selected: RunTab; onSelect: (tab: RunTab) => void }) {
  const t = useTranslations("run");
  const list = useRef<HTMLDivElement>(null);
  const onKeyDown = (event: KeyboardEvent<HTMLButtonElement>, tab: RunTab) => {
    const target = tabKeyTarget(event.key, tab);
    if (target === null) return;
    event.preventDefault();
    onSelect(target);
    list.current?.querySelector<HTMLButtonElement>(`#${tabId(target)}`)?.focus();
  };
  return (
    <div ref={list} role="tablist" aria-label={t("tabsLabel")} className="flex flex-wrap gap-1">
      {RUN_TABS.map(({ id }) => (
        <Button
          key={id}
          id={tabId(id)}
          variant="ghost"
          size="xs"
          role="tab"
          aria-selected={selected === id}
          aria-controls={RUN_TAB_PANEL_ID}
          tabIndex={selected === id ? 0 : -1}
          pressed={selected === id}
          onClick={() => onSelect(id)}
          onKeyDown={(event) => onKeyDown(event, id)}
          {...earlyTabProps(id)}
        >
          {t(`tabs.${id}`)}
        </Button>
      ))}
    </div>
  );
}

/** The panel the tabs control, labelled by the selected tab. */
export function RunTabPanel({ tab, children }: { tab: RunTab; children: ReactNode }) {
  return (
    <div role="tabpanel" id={RUN_TAB_PANEL_ID} aria-labelledby={tabId(tab)} data-tab={tab}>
      {children}
    </div>
  );
}
