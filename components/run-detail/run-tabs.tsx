"use client";

import { useRef } from "react";
import type { KeyboardEvent, ReactNode } from "react";
import { useTranslations } from "next-intl";
import { earlyTabProps } from "@/components/hooks/use-early-tab";
import { Button } from "@/components/ui/button";
import type { RunView } from "@/components/run-detail/run-detail-url-state";
import { RUN_VIEWS } from "@/components/run-detail/run-detail-url-state";

/** The one panel the run tabs control; only the selected view's content is in it. */
export const RUN_TAB_PANEL_ID = "run-tab-panel";
const tabId = (view: RunView) => `run-tab-${view}`;

/** The view an arrow, Home or End key moves to from `current` (wrapping at the ends), or null for other keys. */
export function tabKeyTarget(key: string, current: RunView): RunView | null {
  const at = RUN_VIEWS.indexOf(current);
  const last = RUN_VIEWS.length - 1;
  const index =
    key === "ArrowRight"
      ? at === last
        ? 0
        : at + 1
      : key === "ArrowLeft"
        ? at === 0
          ? last
          : at - 1
        : key === "Home"
          ? 0
          : key === "End"
            ? last
            : null;
  return index === null ? null : (RUN_VIEWS[index] ?? null);
}

/**
 * The run's views as a WAI-ARIA tab list: one tab in the Tab order (roving tabindex), ←/→ move and
 * select with wrap-around, Home/End go to the ends (automatic activation: a panel opens deferred, so
 * moving through the tabs stays quick). Each tab keeps its early-click attribute (decision 0018).
 */
export function RunTabs({ selected, onSelect }: { selected: RunView; onSelect: (view: RunView) => void }) {
  const t = useTranslations("run");
  const list = useRef<HTMLDivElement>(null);
  const onKeyDown = (event: KeyboardEvent<HTMLButtonElement>, view: RunView) => {
    const target = tabKeyTarget(event.key, view);
    if (target === null) return;
    event.preventDefault();
    onSelect(target);
    list.current?.querySelector<HTMLButtonElement>(`#${tabId(target)}`)?.focus();
  };
  return (
    <div ref={list} role="tablist" aria-label={t("viewsLabel")} className="flex flex-wrap gap-1">
      {RUN_VIEWS.map((view) => (
        <Button
          key={view}
          id={tabId(view)}
          variant="ghost"
          size="xs"
          role="tab"
          aria-selected={selected === view}
          aria-controls={RUN_TAB_PANEL_ID}
          tabIndex={selected === view ? 0 : -1}
          pressed={selected === view}
          onClick={() => onSelect(view)}
          onKeyDown={(event) => onKeyDown(event, view)}
          {...earlyTabProps(view)}
        >
          {t(`views.${view}`)}
        </Button>
      ))}
    </div>
  );
}

/** The panel the tabs control, labelled by the selected tab. */
export function RunTabPanel({ view, children }: { view: RunView; children: ReactNode }) {
  return (
    <div role="tabpanel" id={RUN_TAB_PANEL_ID} aria-labelledby={tabId(view)} data-view={view}>
      {children}
    </div>
  );
}
