"use client";

import type { ComponentType, ReactNode } from "react";
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

type TabLabel = `tabs.${keyof Messages["run"]["tabs"]}`;

/** A tab as declared below: its panel must take what the page gives for the data it `needs`. */
interface RunTabDeclaration<Id extends string, Need extends RunTabNeed, Props> {
  id: Id;
  /** Its name in the `run` catalog namespace; also the panel's section title. */
  label: TabLabel;
  needs: readonly Need[];
  panel: ComponentType<Props>;
  /** The panel's module: loaded by `panel`, and ahead of time for a tab with `preload` or a linked one. */
  code: () => Promise<unknown>;
  /** Starts loading with the page instead of on first open. */
  preload?: boolean;
}

/** A registered tab: its panel rendered with the props every panel takes and only the data it names. */
export interface RunTabEntry<Id extends string = string> {
  id: Id;
  label: TabLabel;
  needs: readonly RunTabNeed[];
  code: () => Promise<unknown>;
  preload: boolean;
  /** `data.data` is there only when the entry needs it (the page then re-renders the panel with the stream). */
  render: (props: RunTabProps, data: Omit<RunTabData, "data"> & Partial<Pick<RunTabData, "data">>) => ReactNode;
}

/** A compile error naming the problem, for a panel that wants more than RunTabProps and its `needs`. */
type PanelFits<Need extends RunTabNeed, Props> = [RunTabProps & Pick<RunTabData, Need>] extends [Props]
  ? unknown
  : { panelPropsMustBeRunTabPropsAndTheDataItNeeds: never };

/** Registers a tab; its panel is refused at compile time unless it takes what the page gives it. */
function tab<const Id extends string, const Need extends RunTabNeed, Props>(
  declared: RunTabDeclaration<Id, Need, Props> & PanelFits<Need, Props>,
): RunTabEntry<Id> {
  const Panel = declared.panel as ComponentType<RunTabProps & Pick<RunTabData, Need>>;
  const given = (data: Partial<RunTabData>) =>
    Object.fromEntries(declared.needs.map((need) => [need, data[need]])) as Pick<RunTabData, Need>;
  return {
    id: declared.id,
    label: declared.label,
    needs: declared.needs,
    code: declared.code,
    preload: declared.preload ?? false,
    render: (props, data) => <Panel {...props} {...given(data)} />,
  };
}

export function PanelLoading() {
  const t = useTranslations("run");
  return <Muted>{t("loading")}</Muted>;
}

/*
 * Panels load as chunks of their own, out of the route's first-load JS. One loader per module,
 * shared by its `panel` and its `code`: each `import()` site is a chunk of its own, so a preload
 * through a second site would fetch the same code twice. A `loading` gives each panel its own
 * Suspense boundary: without one, a chunk still loading when it first renders would suspend the
 * whole run page (hiding it, and resetting the history list's scroll).
 */
const timelineCode = () => import("@/components/run-detail/timeline-tab");
/** Also the retry forecast's module (it sits above the tabs). */
export const ledgerCode = () => import("@/components/run-detail/activities-ledger");
const historyCode = () => import("@/components/run-detail/history-tab");
const waitsCode = () => import("@/components/run-detail/waits-tab");
const tasksCode = () => import("@/components/run-detail/tasks-tab");
const commandsCode = () => import("@/components/run-detail/commands-tab");
const relationshipsCode = () => import("@/components/run-detail/relationships-tab");

const TimelineTab = dynamic(() => timelineCode().then((m) => m.TimelineTab), { loading: PanelLoading });
const ActivitiesTab = dynamic(() => ledgerCode().then((m) => m.ActivitiesTab), { loading: PanelLoading });
// Client-only: its virtual list measures itself on mount, and the events come from the browser anyway.
const HistoryTab = dynamic(() => historyCode().then((m) => m.HistoryTab), { ssr: false, loading: PanelLoading });
const WaitsTab = dynamic(() => waitsCode().then((m) => m.WaitsTab), { loading: PanelLoading });
const TasksTab = dynamic(() => tasksCode().then((m) => m.TasksTab), { loading: PanelLoading });
const CommandsTab = dynamic(() => commandsCode().then((m) => m.CommandsTab), { loading: PanelLoading });
const RelationshipsTab = dynamic(() => relationshipsCode().then((m) => m.RelationshipsTab), {
  loading: PanelLoading,
});

/**
 * In display and keyboard order (←/→ move along it). The timeline is the default tab and is
 * rendered by the server, so its code is in the page's preloads already. The attempt ledger is
 * preloaded: it is the tab an operator opens first on a failing run, and a click made while the
 * page loads is applied only once the page is interactive (≈ 0.8–0.9 s into a 50,000-event run's
 * load), so its code should be there by then.
 */
const ENTRIES = [
  tab({
    id: "timeline",
    label: "tabs.timeline",
    needs: ["data", "store", "now"],
    panel: TimelineTab,
    code: timelineCode,
  }),
  tab({
    id: "activities",
    label: "tabs.activities",
    needs: ["data"],
    panel: ActivitiesTab,
    code: ledgerCode,
    preload: true,
  }),
  tab({ id: "history", label: "tabs.history", needs: [], panel: HistoryTab, code: historyCode }),
  tab({ id: "waits", label: "tabs.waits", needs: ["summary"], panel: WaitsTab, code: waitsCode }),
  tab({ id: "tasks", label: "tabs.tasks", needs: ["pending"], panel: TasksTab, code: tasksCode }),
  tab({ id: "commands", label: "tabs.commands", needs: [], panel: CommandsTab, code: commandsCode }),
  tab({
    id: "relationships",
    label: "tabs.relationships",
    needs: ["runs"],
    panel: RelationshipsTab,
    code: relationshipsCode,
  }),
] as const;

export type RunTab = (typeof ENTRIES)[number]["id"];
export const RUN_TABS: readonly RunTabEntry<RunTab>[] = ENTRIES;

export function isRunTab(value: string): value is RunTab {
  return RUN_TABS.some((entry) => entry.id === value);
}

export function runTab(id: RunTab): RunTabEntry<RunTab> {
  return RUN_TABS.find((entry) => entry.id === id) ?? RUN_TABS[0]!;
}

/** Loads the preloaded tabs' code and the code of the tab a copied link opens (`view=`). */
export function preloadTabCode(linked: string | null): void {
  for (const entry of RUN_TABS) if (entry.preload || entry.id === linked) void entry.code().catch(() => undefined);
}
