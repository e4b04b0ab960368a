"use client";

import { useCallback, useMemo, useState } from "react";
import dynamic from "next/dynamic";
import { useRouter, useSearchParams } from "next/navigation";
import { useTranslations } from "next-intl";
import { useQuery } from "@tanstack/react-query";
import type { UseQueryResult } from "@tanstack/react-query";
import type { WorkflowList, WorkflowListItem } from "@/lib/dw/schemas-workflows";
import type { RunsPage } from "@/lib/queries/runs-scan";
import { runRowDetailsQuery } from "@/lib/queries/runs-details";
import { runsCountsQuery } from "@/lib/queries/runs-counts";
import { statusTabCounts } from "@/lib/views/run-row-counts";
import { useTicker } from "@/components/hooks/use-time-format";
import type { ErrorInfo } from "@/lib/views/error-info";
import { toErrorInfo } from "@/lib/views/error-info";
import { runHref, screenHref } from "@/lib/routes/route-for";
import { Button } from "@/components/ui/button";
import { DataTable } from "@/components/ui/data-table";
import { Pager } from "@/components/ui/pager";
import { QueryState } from "@/components/dw/query-state";
import { AttributeFilter } from "@/components/run-list/attribute-filter";
import type { RunsQuery } from "@/components/run-list/run-list-url-state";
import {
  PAGE_SIZES,
  firstPage,
  nextPage,
  parseRunsQuery,
  previousPage,
  runsQueryString,
  withFilter,
} from "@/components/run-list/run-list-url-state";
import { useRunsList } from "@/components/run-list/use-runs-list";
import { useNewRuns } from "@/components/run-list/use-new-runs";
import { useListKeyboard } from "@/components/run-list/use-list-keyboard";
import { SavedViewsBar } from "@/components/saved-views/saved-views-bar";
import { ListLook } from "@/components/saved-views/list-look";
import { parseDensity, parseHidden } from "@/lib/saved-views/saved-views";
import type { Density } from "@/lib/saved-views/saved-views";
import { useRunsColumns } from "@/components/run-list/runs-columns";
import { RunsFilterForm } from "@/components/run-list/runs-filter-form";
import { RunsStatusTabs } from "@/components/run-list/runs-status-tabs";
import { RunsRangeSelect } from "@/components/run-list/runs-range-select";
import { RunsCursorProblem, RunsScanNotes } from "@/components/run-list/runs-scan-notes";
import type { RowSelection } from "@/components/run-list/runs-columns";
import type { BatchTarget } from "@/components/run-list/runs-batch";
import { BATCH_MAX_RUNS } from "@/lib/views/run-batch";
import { useActionContext } from "@/components/actions/use-action-context";
import { useActionWords } from "@/components/actions/use-action-words";
import { personCapability } from "@/lib/views/capabilities";

// The batch panel (plan, sends, tracking) loads when rows are picked for one, not with the list.
const RunsBatchSignal = dynamic(
  () => import("@/components/run-list/runs-batch-signal").then((m) => m.RunsBatchSignal),
  { loading: () => null },
);
const RunsBatch = dynamic(() => import("@/components/run-list/runs-batch").then((m) => m.RunsBatch), {
  loading: () => null,
});
import type { BatchAction } from "@/lib/views/run-batch";
import { withBasePath } from "@/lib/http/base-path";

interface RunsScreenProps {
  namespace: string;
  initialQuery: RunsQuery;
  initialData: WorkflowList | null;
  initialError: ErrorInfo | null;
}

/**
 * Rows picked for a batch action. The pick belongs to one list (its identity): another filter or page
 * starts with nothing picked, so a batch never acts on rows the operator no longer sees.
 */
function useRowSelection(identity: string, rows: readonly WorkflowListItem[]) {
  const [picked, setPicked] = useState<{ identity: string; runs: Map<string, BatchTarget> }>({
    identity,
    runs: new Map(),
  });
  const kept = picked.identity === identity ? picked.runs : EMPTY_PICK;
  // A picked row that left the list (a batch closed it off this tab) is no longer picked.
  const runs = useMemo(() => {
    const onScreen = new Set(rows.map((row) => row.run_id));
    return [...kept.keys()].every((id) => onScreen.has(id))
      ? kept
      : new Map([...kept].filter(([id]) => onScreen.has(id)));
  }, [kept, rows]);
  const selection = useMemo<RowSelection>(() => {
    const onPage = rows.filter((row) => runs.has(row.run_id)).length;
    const set = (next: Map<string, BatchTarget>) => setPicked({ identity, runs: next });
    return {
      has: (runId) => runs.has(runId),
      toggle: (row) => {
        const next = new Map(runs);
        if (!next.delete(row.run_id)) next.set(row.run_id, { workflowId: row.workflow_id, runId: row.run_id });
        set(next);
      },
      page: onPage === 0 ? "none" : onPage === rows.length ? "all" : "some",
      togglePage: () =>
        set(
          onPage === rows.length
            ? new Map()
            : new Map(rows.map((row) => [row.run_id, { workflowId: row.workflow_id, runId: row.run_id }])),
        ),
    };
  }, [identity, rows, runs]);
  return { selection, picked: runs, clear: () => setPicked({ identity, runs: new Map() }) };
}

const EMPTY_PICK = new Map<string, BatchTarget>();

/** Who may cancel or terminate: the same order as the action guard (read-only, person, token). */
function useBatchPermission(): { canAct: boolean; refusal: string | null } {
  const t = useTranslations("attention");
  const context = useActionContext();
  const words = useActionWords();
  const byPerson = personCapability(context.personRole, "operator");
  const refusal = !context.known
    ? t("checking")
    : context.readOnly
      ? t("readOnly")
      : !byPerson.enabled
        ? words.capability(byPerson)
        : context.role === "worker"
          ? t("roleWorker")
          : null;
  return { canAct: refusal === null, refusal };
}

/** Only the status tab narrows the list: the namespace totals still describe every tab. */
function onlyStatus(query: RunsQuery): boolean {
  return query.workflowType === "" && query.search === "" && query.range === null && query.taskQueue === "";
}

/** The native history API keeps Next's router and useSearchParams in sync without a server render. */
function useRunsNavigation(namespace: string) {
  // The list is fetched by the client query, and the back button still walks the pages.
  return useCallback(
    (next: RunsQuery) => {
      window.history.pushState(null, "", `${screenHref(namespace, "runs")}${runsQueryString(next)}`);
    },
    [namespace],
  );
}

/** The runs list: status tabs, filters, the live table with "+N new", keyboard and paging, all in the URL. */
export function RunsScreen({ namespace, initialQuery, initialData, initialError }: RunsScreenProps) {
  const t = useTranslations("runs");
  const router = useRouter();
  const searchParams = useSearchParams();
  const query = useMemo(() => parseRunsQuery(searchParams), [searchParams]);
  const list = useRunsList(namespace, query, { query: initialQuery, data: initialData });
  const latest = list.result.isPlaceholderData ? undefined : list.result.data;
  const live = useNewRuns(list.identity, latest, list.initialData);
  const navigate = useRunsNavigation(namespace);

  const rows = live.rows;
  const nextToken = latest?.next_page_token ?? null;
  const previous = previousPage(query);
  const onNext = useMemo(
    () => (nextToken ? () => navigate(nextPage(query, nextToken)) : undefined),
    [nextToken, query, navigate],
  );
  const onPrevious = useMemo(() => (previous ? () => navigate(previous) : undefined), [previous, navigate]);
  const onOpen = useCallback(
    (index: number) => {
      const row = rows[index];
      if (row) router.push(runHref(namespace, row.workflow_id, row.run_id));
    },
    [rows, router, namespace],
  );
  const keyboard = useListKeyboard({ count: rows.length, onOpen, onNext, onPrevious });
  const density = parseDensity(query.density);
  const hidden = parseHidden(query.hide, RUN_COLUMN_CHOICES);
  const typeOptions = useMemo(() => [...new Set(rows.map((row) => row.workflow_type))].sort(), [rows]);
  const queueOptions = useMemo(
    () => [...new Set(rows.flatMap((row) => (row.task_queue ? [row.task_queue] : [])))].sort(),
    [rows],
  );
  const filtered =
    query.status !== "all" ||
    query.workflowType !== "" ||
    query.search !== "" ||
    query.range !== null ||
    query.taskQueue !== "";
  const cursorProblem = latest?.view.cursorProblem ?? null;
  const metrics = useQuery(runsCountsQuery(namespace));
  const tabCounts = statusTabCounts({
    metrics: metrics.data ?? null,
    filtered: !onlyStatus(query),
    current: query.status,
    page:
      latest && !cursorProblem ? { shown: rows.length, more: Boolean(nextToken), first: query.cursor === null } : null,
  });
  const { selection, picked, clear } = useRowSelection(list.identity, rows);
  const [batch, setBatch] = useState<{ action: BatchAction | "signal"; targets: BatchTarget[] } | null>(null);
  const permission = useBatchPermission();
  // Before the client query has anything, the server's error (if any) is what there is to show. A
  // refused request (422) is shown even over the previous list's rows: they do not answer it.
  const refused = list.result.isError && toErrorInfo(list.result.error).reason === "validation_failed";
  const error =
    list.result.isError && (!list.result.data || refused) ? list.result.error : live.loaded ? null : initialError;

  return (
    <div className="space-y-4">
      <div className="flex flex-wrap items-end justify-between gap-3">
        <SavedViewsBar screen="runs" stuckHref={screenHref(namespace, "attention")} />
        <RunsLook
          density={density}
          hidden={hidden}
          withFailure={query.status === "failed"}
          onChange={(look) => navigate({ ...query, ...look })}
        />
      </div>
      <div className="flex flex-wrap items-end gap-3">
        <RunsStatusTabs
          current={query.status}
          counts={tabCounts}
          onSelect={(status) => navigate(withFilter(query, { status }))}
        />
        <RunsRangeSelect value={query.range} onChange={(range) => navigate(withFilter(query, { range }))} />
        <RunsFilterForm
          key={JSON.stringify([query.search, query.workflowType, query.taskQueue])}
          initial={query}
          typeOptions={typeOptions}
          queueOptions={queueOptions}
          filtered={filtered}
          onApply={(filters) => navigate(withFilter(query, filters))}
          onClear={() =>
            navigate(withFilter(query, { status: "all", search: "", workflowType: "", range: null, taskQueue: "" }))
          }
        />
        <PageSizeSelect value={query.pageSize} onChange={(pageSize) => navigate(withFilter(query, { pageSize }))} />
      </div>
      <AttributeFilter
        namespace={namespace}
        search={query.search}
        onChange={(search) => navigate(withFilter(query, { search }))}
      />

      <RunsStatusLine
        latest={latest}
        shown={rows.length}
        pending={live.pending.length}
        onShowNew={live.showNew}
        result={list.result}
      />
      {latest ? (
        <RunsScanNotes
          view={latest.view}
          shown={latest.workflows.length}
          search={query.search}
          typed={query.workflowType}
        />
      ) : null}

      {picked.size > 0 && !batch ? (
        <RunsSelectionBar
          count={picked.size}
          onAction={(action) => setBatch({ action, targets: [...picked.values()].slice(0, BATCH_MAX_RUNS) })}
          onClear={clear}
        />
      ) : null}
      {batch?.action === "signal" ? (
        <RunsBatchSignal
          key={`signal:${batch.targets.map((run) => run.runId).join(",")}`}
          namespace={namespace}
          targets={batch.targets}
          canAct={permission.canAct}
          disabledReason={permission.refusal}
          onClose={() => {
            setBatch(null);
            clear();
          }}
        />
      ) : batch ? (
        <RunsBatch
          key={`${batch.action}:${batch.targets.map((run) => run.runId).join(",")}`}
          namespace={namespace}
          action={batch.action}
          targets={batch.targets}
          canAct={permission.canAct}
          disabledReason={permission.refusal}
          onClose={() => {
            setBatch(null);
            clear();
          }}
        />
      ) : null}

      {cursorProblem ? (
        <RunsCursorProblem
          problem={cursorProblem}
          firstPageHref={`${withBasePath(screenHref(namespace, "runs"))}${runsQueryString(firstPage(query))}`}
          onFirstPage={() => navigate(firstPage(query))}
        />
      ) : (
        <RunsTable
          namespace={namespace}
          rows={live.loaded && !error ? rows : undefined}
          error={error}
          onRetry={() => void list.result.refetch()}
          filtered={filtered}
          selected={keyboard.selected}
          onSelect={keyboard.setSelected}
          selection={selection}
          withFailure={query.status === "failed"}
          density={density}
          hidden={hidden}
        />
      )}

      <Pager
        label={t("pagination")}
        previousLabel={t("previous")}
        nextLabel={t("next")}
        onPrevious={onPrevious}
        onNext={onNext}
      />
    </div>
  );
}

const NO_DETAILS = {};

/** Columns an operator may leave out (the checkbox, id and status name a row and stay), by catalog key. */
const RUN_COLUMN_LABELS = {
  failure: "failure",
  workflow_type: "type",
  business_key: "businessKey",
  task_queue: "taskQueue",
  started_at: "started",
  closed_at: "closed",
  duration: "duration",
} as const;
const RUN_COLUMN_CHOICES = Object.keys(RUN_COLUMN_LABELS);

function columnId(column: { id?: string; accessorKey?: unknown }): string {
  return column.id ?? String(column.accessorKey ?? "");
}

/** Density and columns, written to the URL with the filters (so a saved view keeps them). */
function RunsLook({
  density,
  hidden,
  withFailure,
  onChange,
}: {
  density: Density;
  hidden: ReadonlySet<string>;
  withFailure: boolean;
  onChange: (look: { density?: string; hide?: string }) => void;
}) {
  const t = useTranslations("runs");
  const look = (next: { density: Density; hidden: ReadonlySet<string> }) =>
    onChange({
      density: next.density === "normal" ? "normal" : undefined,
      hide: next.hidden.size > 0 ? RUN_COLUMN_CHOICES.filter((id) => next.hidden.has(id)).join(",") : undefined,
    });
  return (
    <ListLook
      density={density}
      onDensity={(next) => look({ density: next, hidden })}
      columns={Object.entries(RUN_COLUMN_LABELS)
        .filter(([id]) => withFailure || id !== "failure")
        .map(([id, key]) => ({ id, label: t(`columns.${key}`) }))}
      hidden={hidden}
      onHidden={(next) => look({ density, hidden: next })}
    />
  );
}

/** The rows on screen, or loading / the error / the empty state (which says whether a filter is the cause). */
function RunsTable({
  namespace,
  rows,
  error,
  onRetry,
  filtered,
  selected,
  onSelect,
  selection,
  withFailure,
  density,
  hidden,
}: {
  namespace: string;
  withFailure: boolean;
  density: Density;
  hidden: ReadonlySet<string>;
  rows: readonly WorkflowListItem[] | undefined;
  error: unknown;
  onRetry: () => void;
  filtered: boolean;
  selected: number;
  onSelect: (index: number) => void;
  selection: RowSelection;
}) {
  const details = useQuery(runRowDetailsQuery(namespace, rows ?? []));
  // Stuck ages tick while the list is open; the details themselves refresh every 30 s.
  const now = useTicker(10_000);
  const all = useRunsColumns(namespace, details.data ?? NO_DETAILS, now, selection, withFailure);
  const columns = useMemo(() => all.filter((column) => !hidden.has(columnId(column))), [all, hidden]);
  return (
    <QueryState
      query={{ data: rows, error, refetch: onRetry }}
      loading={<RunsLoading />}
      isEmpty={(data) => data.length === 0}
      empty={<RunsEmpty filtered={filtered} />}
      showStale={false}
    >
      {(data) => (
        <div className="rounded-lg border border-line bg-panel">
          <DataTable
            columns={columns}
            data={data}
            getRowId={(row) => row.run_id}
            testId="runs-table"
            rowTestId="runs-row"
            density={density}
            nowrap
            stickyHeader
            selectedIndex={selected}
            onRowClick={onSelect}
          />
        </div>
      )}
    </QueryState>
  );
}

/** What the picked rows can have done to them; the batch panel then plans before anything is sent. */
function RunsSelectionBar({
  count,
  onAction,
  onClear,
}: {
  count: number;
  onAction: (action: BatchAction | "signal") => void;
  onClear: () => void;
}) {
  const t = useTranslations("runs");
  return (
    <div
      data-testid="runs-selection"
      className="flex flex-wrap items-center gap-3 rounded-md border border-line bg-panel px-3 py-2 text-sm"
    >
      <span className="font-medium">{t("select.count", { count })}</span>
      <Button onClick={() => onAction("cancel")} data-testid="runs-batch-cancel">
        {t("select.cancel")}
      </Button>
      <Button variant="danger" onClick={() => onAction("terminate")} data-testid="runs-batch-terminate">
        {t("select.terminate")}
      </Button>
      <Button onClick={() => onAction("signal")} data-testid="runs-batch-signal">
        {t("select.signal")}
      </Button>
      <Button variant="link" onClick={onClear} className="text-xs">
        {t("select.clear")}
      </Button>
      {count > BATCH_MAX_RUNS ? (
        <span className="text-xs text-fg-muted">{t("select.capped", { limit: BATCH_MAX_RUNS })}</span>
      ) : null}
    </div>
  );
}

function PageSizeSelect({ value, onChange }: { value: number; onChange: (size: number) => void }) {
  const t = useTranslations("runs");
  return (
    <label className="ml-auto flex flex-col text-xs text-fg-muted">
      {t("pageSize")}
      <select
        value={value}
        onChange={(event) => onChange(Number(event.target.value))}
        className="mt-1 h-8 rounded-md border border-line bg-panel px-2 text-sm text-fg"
      >
        {PAGE_SIZES.map((size) => (
          <option key={size} value={size}>
            {size}
          </option>
        ))}
      </select>
    </label>
  );
}

/** Count, "+N new", refreshing and a failed refresh (over the rows still shown), and the keyboard hint. */
function RunsStatusLine({
  latest,
  shown,
  pending,
  onShowNew,
  result,
}: {
  latest: RunsPage | undefined;
  /** Rows on screen: the count says what the table shows. */
  shown: number;
  pending: number;
  onShowNew: () => void;
  result: UseQueryResult<RunsPage>;
}) {
  const t = useTranslations("runs");
  return (
    <div className="flex min-h-8 items-center gap-3 text-sm text-fg-muted" aria-live="polite">
      {latest && !latest.view.cursorProblem ? (
        // The server's `workflow_count` is the size of this page, not a total (WorkflowController@index,
        // durable-workflow/server@11d35b7 `'workflow_count' => $page->count()`): say "shown", never "runs".
        <span data-testid="runs-count">{t(latest.next_page_token ? "shownMore" : "shown", { count: shown })}</span>
      ) : null}
      {pending > 0 ? (
        <Button
          variant="bare"
          data-testid="runs-new"
          onClick={onShowNew}
          className="rounded-full bg-accent px-3 py-1 text-xs font-semibold text-accent-fg"
        >
          {t("newRuns", { count: pending })}
        </Button>
      ) : null}
      {result.isFetching ? <span className="text-xs">{t("refreshing")}</span> : null}
      {result.isError && result.data && toErrorInfo(result.error).reason !== "validation_failed" ? (
        <span className="text-xs text-bad" data-testid="runs-refresh-failed">
          {t("refreshFailed", { message: toErrorInfo(result.error).message })}
        </span>
      ) : null}
      <span className="ml-auto hidden text-xs md:inline">{t("keyboardHint")}</span>
    </div>
  );
}

function RunsLoading() {
  const t = useTranslations("runs");
  return (
    <div
      data-testid="runs-loading"
      className="rounded-lg border border-line bg-panel px-6 py-10 text-center text-sm text-fg-muted"
    >
      {t("loading")}
    </div>
  );
}

function RunsEmpty({ filtered }: { filtered: boolean }) {
  const t = useTranslations("runs");
  return (
    <section
      data-testid="runs-empty"
      className="rounded-lg border border-dashed border-line bg-panel px-6 py-12 text-center"
    >
      <h2 className="text-base font-semibold text-fg">{filtered ? t("empty.filteredTitle") : t("empty.title")}</h2>
      <p className="mt-2 text-sm text-fg-muted">{filtered ? t("empty.filteredBody") : t("empty.body")}</p>
    </section>
  );
}
