"use client";

import type { ComponentType } from "react";
import dynamic from "next/dynamic";
import { useTranslations } from "next-intl";
import type { RunListItem, WorkflowDebug } from "@/lib/dw/schemas-workflows";
import type { Messages } from "@/lib/i18n/messages";
import type { RunViewData } from "@/lib/run-view/stream";
import type { RunViewStore, RunViewSummary } from "@/lib/run-view/store";
import type { RunTabSettings } from "@/components/run-detail/run-detail-url-state";
import { Muted } from "@/components/ui/section";

/**
 * The run page's tabs. Adding one is an entry below, a panel module, and its `run.tabs.*` label in
 * each catalog (docs/architecture.md, "How to add a run tab"). The page renders the open tab's panel
 * with the props every panel takes and only the data its entry `needs`.
 */

/** What every panel is given: the run, whether it is open, and the URL settings the tabs keep. */
export interface RunTabProps {
  namespace: string;
  workflowId: string;
  runId: string;
  /** The run is open: reads keep following it. */
  open: boolean;
  settings: RunTabSettings;
  onSettings: (change: Partial<RunTabSettings>) => void;
}

/** What a panel may ask the page for (its entry's `needs`). */
export interface RunTabData {
  /** The streamed views, every state: the panel re-renders with each update (every 100 ms). */
  data: RunViewData;
  /** The streamed views' summary (the snapshot once the whole history is read): a few changes per read. */
  summary: RunViewSummary;
  store: RunViewStore;
  /** Debug's open workflow tasks. */
  pending: WorkflowDebug["pending_workflow_tasks"];
  /** Every run of the workflow (the continue-as-new chain). */
  runs: readonly RunListItem[];
  /** The page's ticking clock (every 5 s while the run is open). */
  now: number;
}
export type RunTabNeed = keyof RunTabData;

/** A tab's id is its label's key in the catalog (`run.tabs.<id>`), so a tab without words does not compile. */
type TabId = keyof Messages["run"]["tabs"];

/** A tab as declared below: its panel must take what the page gives for the data it `needs`. */
interface RunTabDeclaration<Id extends TabId, Need extends RunTabNeed, Props> {
  id: Id;
  needs: readonly Need[];
  panel: ComponentType<Props>;
  /** The panel's module, for loading it before the tab first renders (`lazy` sets both). */
  code?: () => Promise<unknown>;
  /** Starts loading with the page instead of on first open. */
  preload?: boolean;
}

/**
 * A registered tab. Its words are `run.tabs.<id>` (the tab's button and the panel's section title);
 * its panel is given what every panel takes and only the data it names (`panelProps`).
 */
export interface RunTabEntry<Id extends TabId = TabId> {
  id: Id;
  needs: readonly RunTabNeed[];
  panel: ComponentType<RunTabProps & Partial<RunTabData>>;
  code?: () => Promise<unknown>;
  preload?: boolean;
}

/** A compile error naming the problem, for a panel that wants more than RunTabProps and its `needs`. */
type PanelFits<Need extends RunTabNeed, Props> = [RunTabProps & Pick<RunTabData, Need>] extends [Props]
  ? unknown
  : { panelPropsMustBeRunTabPropsAndTheDataItNeeds: never };

/**
 * Registers a tab; its panel is refused at compile time unless it takes what the page gives it,
 * which is why it may then be stored as taking any of the data.
 */
function tab<const Id extends TabId, const Need extends RunTabNeed, Props>(
  declared: RunTabDeclaration<Id, Need, Props> & PanelFits<Need, Props>,
): RunTabEntry<Id> {
  return declared as unknown as RunTabEntry<Id>;
}

/** The props the page gives a tab's panel: what every panel takes and only the data its entry names. */
export function panelProps(entry: RunTabEntry, props: RunTabProps, data: Partial<RunTabData>) {
  return { ...props, ...Object.fromEntries(entry.needs.map((need) => [need, data[need]])) };
}

export function PanelLoading() {
  const t = useTranslations("run");
  return <Muted>{t("loading")}</Muted>;
}

/**
 * A panel in a chunk of its own (out of the route's first-load JS), loaded when its tab first
 * renders or earlier through `code`. One `import()` site per module: a preload through a second
 * site would fetch the same code twice. The `loading` gives each panel a Suspense boundary of its
 * own: without one, a chunk still loading when it first renders would suspend the whole run page
 * (hiding it, and resetting the history list's scroll).
 */
function lazy<Module, Props>(code: () => Promise<Module>, pick: (module: Module) => ComponentType<Props>, ssr = true) {
  return { code, panel: dynamic(() => code().then(pick), { loading: PanelLoading, ssr }) };
}

/** Also the retry forecast's module (it sits above the tabs). */
export const ledgerCode = () => import("@/components/run-detail/activities-ledger");
const exportTabsCode = () => import("@/components/run-detail/export-tabs");
const queriesCode = () => import("@/components/run-detail/queries-tab");
const updatesCode = () => import("@/components/run-detail/updates-tab");

/**
 * In display and keyboard order (←/→ move along it). The timeline is the default tab and the
 * server renders it: its `import()` is written in its `dynamic()` call, the form from which the
 * build lists the chunk in the page's preloads. The attempt ledger is preloaded: it is the tab an
 * operator opens first on a failing run, and a click made while the page loads is applied only
 * once it is interactive (≈ 0.8–0.9 s into a 50,000-event run's load). The history renders in the
 * browser only: its virtual list measures itself on mount, and its events come from the browser.
 */
const ENTRIES = [
  tab({
    id: "timeline",
    needs: ["data", "store", "now"],
    panel: dynamic(() => import("@/components/run-detail/timeline-tab").then((m) => m.TimelineTab), {
      loading: PanelLoading,
    }),
  }),
  tab({ id: "activities", needs: ["data"], ...lazy(ledgerCode, (m) => m.ActivitiesTab), preload: true }),
  tab({
    id: "history",
    needs: [],
    ...lazy(
      () => import("@/components/run-detail/history-tab"),
      (m) => m.HistoryTab,
      false,
    ),
  }),
  tab({ id: "waits", needs: ["summary"], ...lazy(exportTabsCode, (m) => m.WaitsTab) }),
  tab({ id: "tasks", needs: ["pending"], ...lazy(exportTabsCode, (m) => m.TasksTab) }),
  tab({ id: "commands", needs: [], ...lazy(exportTabsCode, (m) => m.CommandsTab) }),
  tab({ id: "relationships", needs: ["runs"], ...lazy(exportTabsCode, (m) => m.RelationshipsTab) }),
  // In the browser only: it offers the query names this browser sent before (localStorage).
  tab({ id: "queries", needs: [], ...lazy(queriesCode, (m) => m.QueriesTab, false) }),
  // Its list is the run view's (`summary.snapshot.updates`), which only the browser reads; in the
  // browser only, so its form exists once it is interactive (text typed before hydration was lost).
  tab({ id: "updates", needs: ["summary"], ...lazy(updatesCode, (m) => m.UpdatesTab, false) }),
] as const;

export type RunTab = (typeof ENTRIES)[number]["id"];
export const RUN_TABS: readonly RunTabEntry<RunTab>[] = ENTRIES;

export function isRunTab(value: string): value is RunTab {
  return RUN_TABS.some((entry) => entry.id === value);
}

export function runTab(id: RunTab): RunTabEntry<RunTab> {
  return RUN_TABS.find((entry) => entry.id === id)!;
}

/** Loads the preloaded tabs' code and the code of the tab a copied link opens (`view=`). */
export function preloadTabCode(linked: string | null): void {
  for (const entry of RUN_TABS) if (entry.preload || entry.id === linked) void entry.code?.().catch(() => undefined);
}
