"use client";

import { useState } from "react";
import { useTranslations } from "next-intl";
import { useQuery } from "@tanstack/react-query";
import type { HistoryExport } from "@/lib/dw/schemas-export";
import type { RunListItem, WorkflowDebug } from "@/lib/dw/schemas-workflows";
import { runViewExtrasQuery } from "@/lib/queries/run-view";
import type { DerivedWait } from "@/lib/views/run-derivation";
import type { RunViewExtras } from "@/lib/views/run-view-wire";
import { Button } from "@/components/ui/button";
import { ExportExtras } from "@/components/run-detail/export-extras";
import {
  CommandsPanel,
  RelationshipsPanel,
  TasksPanel,
  WaitsPanel,
  pendingAsTasks,
} from "@/components/run-detail/panels";
import { Muted } from "@/components/ui/section";

interface TabTarget {
  namespace: string;
  workflowId: string;
  runId: string;
  open: boolean;
  pending: WorkflowDebug["pending_workflow_tasks"];
}

// The extras are export rows relayed as read (lib/views/run-view-wire.ts): the export's own shapes.
type Tasks = NonNullable<HistoryExport["tasks"]>;
type Commands = NonNullable<HistoryExport["commands"]>;
type Waits = NonNullable<HistoryExport["waits"]>;
const tasksOf = (extras: RunViewExtras) => extras.tasks as unknown as Tasks;
const commandsOf = (extras: RunViewExtras) => extras.commands as unknown as Commands;
const waitsOf = (extras: RunViewExtras) => extras.waits as unknown as Waits;
const linksOf = (extras: RunViewExtras) => (extras.links ?? undefined) as HistoryExport["links"] | undefined;

function Heading({ children }: { children: string }) {
  return <h3 className="mb-1 text-xs font-semibold text-fg-muted uppercase">{children}</h3>;
}

/** Waits derived from history at once; the server's projection (export) on request. */
function WaitsTab({ target, waits }: { target: TabTarget; waits: readonly DerivedWait[] | null }) {
  const t = useTranslations("run.waits");
  const tf = useTranslations("run.extrasFields");
  const [projected, setProjected] = useState(false);
  return (
    <div className="space-y-4">
      <div>
        <p className="mb-2 text-xs text-fg-muted" data-testid="waits-derived">
          {t("derived")}
        </p>
        {waits ? <WaitsPanel waits={waits} /> : <Muted>{t("none")}</Muted>}
      </div>
      {projected ? (
        <div>
          <Heading>{t("projected")}</Heading>
          <ExportExtras {...target} fields={tf("waits")}>
            {(extras) => <WaitsPanel waits={waitsOf(extras)} testId="projected-waits-table" />}
          </ExportExtras>
        </div>
      ) : (
        <Button size="xs" onClick={() => setProjected(true)} data-testid="show-projected-waits">
          {t("showProjected")}
        </Button>
      )}
    </div>
  );
}

/** Debug's open tasks at once; every task of the run from the export. */
function TasksTab({ target }: { target: TabTarget }) {
  const t = useTranslations("run.tasks");
  const tf = useTranslations("run.extrasFields");
  return (
    <div className="space-y-4">
      <div>
        <Heading>{t("pendingTitle")}</Heading>
        <TasksPanel tasks={pendingAsTasks(target.pending)} pending={target.pending} testId="pending-tasks-table" />
      </div>
      <div>
        <Heading>{t("allTitle")}</Heading>
        <ExportExtras {...target} fields={tf("tasks")}>
          {(extras) => <TasksPanel tasks={tasksOf(extras)} pending={target.pending} />}
        </ExportExtras>
      </div>
    </div>
  );
}

/** The continue-as-new chain at once (runs list); parent and child links from the export. */
function RelationshipsTab({ target, runs }: { target: TabTarget; runs: readonly RunListItem[] }) {
  const tf = useTranslations("run.extrasFields");
  const extras = useQuery(runViewExtrasQuery(target.namespace, target.workflowId, target.runId, target.open));
  const links = extras.data ? linksOf(extras.data) : undefined;
  return (
    <RelationshipsPanel
      namespace={target.namespace}
      workflowId={target.workflowId}
      runId={target.runId}
      runs={runs}
      links={links}
      linksPending={
        extras.data ? undefined : (
          <ExportExtras {...target} fields={tf("links")}>
            {() => null}
          </ExportExtras>
        )
      }
    />
  );
}

/** The Waits, Tasks, Commands and Runs-and-links tabs: what debug and the derived views have, then the export's part. */
export function RunTabExtras({
  view,
  waits = null,
  runs = [],
  ...target
}: TabTarget & {
  view: "waits" | "tasks" | "commands" | "relationships";
  waits?: readonly DerivedWait[] | null;
  runs?: readonly RunListItem[];
}) {
  const tf = useTranslations("run.extrasFields");
  switch (view) {
    case "waits":
      return <WaitsTab target={target} waits={waits} />;
    case "tasks":
      return <TasksTab target={target} />;
    case "commands":
      return (
        <ExportExtras {...target} fields={tf("commands")}>
          {(extras) => <CommandsPanel commands={commandsOf(extras)} />}
        </ExportExtras>
      );
    case "relationships":
      return <RelationshipsTab target={target} runs={runs} />;
  }
}
