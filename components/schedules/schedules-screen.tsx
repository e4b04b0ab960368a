"use client";

import { useMemo, useState } from "react";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useTranslations } from "next-intl";
import { useQueries, useQuery } from "@tanstack/react-query";
import type { ScheduleDescription, ScheduleListItem } from "@/lib/dw/schemas-schedules";
import type { RunDescription } from "@/lib/dw/schemas-workflows";
import { scheduledRunQuery, scheduleQuery, schedulesQuery } from "@/lib/queries/schedules";
import type { ScheduleFilters } from "@/lib/views/schedules";
import {
  filterSchedules,
  fireLateness,
  lastAction,
  pageOf,
  scheduleState,
  scheduleTally,
  parseScheduleFilters,
  withScheduleFilters,
  workflowTypesOf,
} from "@/lib/views/schedules";
import { parseDensity, parseHidden } from "@/lib/saved-views/saved-views";
import type { Density } from "@/lib/saved-views/saved-views";
import { SavedViewsBar } from "@/components/saved-views/saved-views-bar";
import { ListLook } from "@/components/saved-views/list-look";
import { scheduleHref } from "@/lib/routes/route-for";
import type { HealthFilter, ScheduleHealth } from "@/lib/views/schedule-health";
import { healthFilterIds, parseHealthFilter } from "@/lib/views/schedule-health";
import { useScheduleHealth } from "@/components/schedules/use-schedule-health";
import { QueryState } from "@/components/dw/query-state";
import { ExportLinks } from "@/components/dw/export-links";
import { DataTable, dataColumns } from "@/components/ui/data-table";
import { Field, inputClass } from "@/components/ui/field";
import { Pager } from "@/components/ui/pager";
import { Section } from "@/components/ui/section";
import { SegmentedControl } from "@/components/ui/segmented-control";
import Link from "@/components/ui/link";
import { useTicker } from "@/components/hooks/use-time-format";
import { ScheduleSpecWords } from "@/components/schedules/schedule-spec-words";
import { useCronWords } from "@/components/schedules/use-cron-words";
import { ScheduleStateBadge, FireTime, LastFire } from "@/components/schedules/schedule-facts";

/** Rows a page shows; each visible row may read its schedule and its last run (two reads a row). */
export const SCHEDULES_PAGE_SIZE = 20;

interface Row {
  item: ScheduleListItem;
  detail: ScheduleDescription | undefined;
  lastRun: RunDescription | undefined;
}

const col = dataColumns<Row>();

function useColumns(namespace: string, nowMs: number) {
  const t = useTranslations("schedules");
  return useMemo(
    () =>
      col.columns([
        col.display({
          id: "id",
          header: () => t("col.id"),
          cell: ({ row }) => (
            <Link
              href={scheduleHref(namespace, row.original.item.schedule_id)}
              className="block max-w-64 truncate font-mono text-accent hover:underline"
              title={row.original.item.schedule_id}
            >
              {row.original.item.schedule_id}
            </Link>
          ),
        }),
        col.display({
          id: "type",
          header: () => t("col.workflowType"),
          cell: ({ row }) => row.original.item.workflow_type ?? row.original.item.action?.workflow_type ?? "–",
          meta: { className: "font-mono text-xs" },
        }),
        col.display({
          id: "spec",
          header: () => t("col.spec"),
          cell: ({ row }) => {
            const spec = row.original.item.spec ?? row.original.detail?.spec;
            return spec === undefined ? (
              <span className="text-fg-muted">…</span>
            ) : (
              <ScheduleSpecWords spec={spec} compact />
            );
          },
        }),
        col.display({
          id: "state",
          header: () => t("col.state"),
          cell: ({ row }) => (
            <ScheduleStateBadge
              status={row.original.item.status}
              paused={row.original.item.paused}
              note={row.original.item.note}
            />
          ),
        }),
        col.display({
          id: "next",
          header: () => t("col.nextFire"),
          cell: ({ row }) => {
            const state = scheduleState(row.original.item.status, row.original.item.paused);
            return (
              <FireTime
                at={row.original.item.next_fire}
                late={fireLateness(state, row.original.item.next_fire, nowMs)}
                now={nowMs}
                paused={state === "paused"}
              />
            );
          },
          meta: { className: "whitespace-nowrap" },
        }),
        col.display({
          id: "last",
          header: () => t("col.lastFire"),
          cell: ({ row }) => (
            <LastFire
              namespace={namespace}
              at={row.original.item.last_fire}
              action={row.original.detail ? lastAction(row.original.detail) : undefined}
              run={row.original.lastRun}
              now={nowMs}
            />
          ),
        }),
        col.display({
          id: "fires",
          header: () => t("col.fires"),
          cell: ({ row }) => row.original.item.fires_count ?? "–",
          meta: { className: "tabular-nums text-right" },
        }),
      ]),
    [t, namespace, nowMs],
  );
}

/** Columns an operator may leave out (the id names a row and stays), by catalog key under `col`. */
const SCHEDULE_COLUMN_LABELS = {
  type: "workflowType",
  spec: "spec",
  state: "state",
  next: "nextFire",
  last: "lastFire",
  fires: "fires",
} as const;
const SCHEDULE_COLUMN_CHOICES = Object.keys(SCHEDULE_COLUMN_LABELS) as (keyof typeof SCHEDULE_COLUMN_LABELS)[];

/**
 * A filter or look change replaces the URL through the native history API: Next keeps
 * useSearchParams in step without a server render, and typing into the id field stays immediate.
 */
function replaceSearch(query: URLSearchParams) {
  const search = query.toString();
  window.history.replaceState(null, "", `${window.location.pathname}${search ? `?${search}` : ""}`);
}

/** Details of the visible rows: the schedule (its spec and last action) and the run its last fire started. */
function useRowDetails(namespace: string, items: readonly ScheduleListItem[]): Row[] {
  const details = useQueries({ queries: items.map((item) => scheduleQuery(namespace, item.schedule_id)) });
  const lastRuns = details.map((query) => {
    const last = query.data ? lastAction(query.data) : null;
    return last?.kind === "run" ? last.workflowId : null;
  });
  const runs = useQueries({
    queries: lastRuns.map((workflowId) => ({
      ...scheduledRunQuery(namespace, workflowId ?? ""),
      enabled: workflowId !== null,
    })),
  });
  return items.map((item, i) => ({ item, detail: details[i]?.data, lastRun: runs[i]?.data }));
}

/** The namespace's schedules: filters, a page of rows, each with its spec in words and its last fire. */
export function SchedulesScreen({ namespace }: { namespace: string }) {
  const t = useTranslations("schedules");
  const nowMs = useTicker(10_000);
  const list = useQuery(schedulesQuery(namespace));
  useCronWords(); // the spec words start loading while the list is read
  const [page, setPage] = useState(0);
  const router = useRouter();
  const pathname = usePathname();
  const params = useSearchParams();
  // Filters, density and columns live in the URL: a copied link or a saved view reopens the same list.
  const filters = useMemo(() => parseScheduleFilters(params), [params]);
  const density = parseDensity(params.get("density"));
  const hidden = parseHidden(params.get("hide"), SCHEDULE_COLUMN_CHOICES);
  const setLook = (look: { density: Density; hidden: ReadonlySet<string> }) => {
    const query = new URLSearchParams(params.toString());
    if (look.density === "normal") query.set("density", "normal");
    else query.delete("density");
    const hide = SCHEDULE_COLUMN_CHOICES.filter((id) => look.hidden.has(id)).join(",");
    if (hide) query.set("hide", hide);
    else query.delete("hide");
    replaceSearch(query);
  };
  // `?show=late|failed`: the schedules a count on Overview or Attention names, kept in the URL.
  const show = parseHealthFilter(params.get("show"));
  const health = useScheduleHealth(namespace);
  const keep = show ? healthFilterIds(health, show) : null;
  const all = useMemo(() => list.data?.schedules ?? [], [list.data]);
  const filtered = useMemo(
    () => filterSchedules(all, filters).filter((item) => show === null || (keep?.has(item.schedule_id) ?? false)),
    [all, filters, show, keep],
  );
  const setShow = (next: HealthFilter | null) => {
    const query = new URLSearchParams(params.toString());
    if (next) query.set("show", next);
    else query.delete("show");
    setPage(0);
    const search = query.toString();
    router.replace(search ? `${pathname}?${search}` : pathname);
  };
  const shown = pageOf(filtered, page, SCHEDULES_PAGE_SIZE);
  const rows = useRowDetails(namespace, shown.rows);
  const allColumns = useColumns(namespace, nowMs);
  const columns = useMemo(() => allColumns.filter((column) => !hidden.has(column.id ?? "")), [allColumns, hidden]);
  const types = useMemo(() => workflowTypesOf(all), [all]);
  const change = (next: Partial<ScheduleFilters>) => {
    replaceSearch(withScheduleFilters(new URLSearchParams(params.toString()), { ...filters, ...next }));
    setPage(0);
  };

  return (
    <Section title={t("listTitle")} testId="schedules-list">
      <div className="mb-3 flex flex-wrap items-end justify-between gap-3">
        <SavedViewsBar screen="schedules" />
        <ListLook
          density={density}
          onDensity={(next) => setLook({ density: next, hidden })}
          columns={SCHEDULE_COLUMN_CHOICES.map((id) => ({ id, label: t(`col.${SCHEDULE_COLUMN_LABELS[id]}`) }))}
          hidden={hidden}
          onHidden={(next) => setLook({ density, hidden: next })}
        />
      </div>
      <div className="mb-3 flex flex-wrap items-end gap-3" data-testid="schedules-filters">
        <SegmentedControl
          label={t("filter.state")}
          value={filters.status}
          options={(["all", "active", "paused"] as const).map((value) => ({ value, label: t(`filter.${value}`) }))}
          onChange={(status) => change({ status })}
        />
        <Field label={t("filter.workflowType")}>
          <select
            className={inputClass}
            value={filters.workflowType}
            onChange={(e) => change({ workflowType: e.target.value })}
          >
            <option value="">{t("filter.anyType")}</option>
            {types.map((type) => (
              <option key={type} value={type}>
                {type}
              </option>
            ))}
          </select>
        </Field>
        <Field label={t("filter.id")}>
          <input
            className={inputClass}
            type="search"
            value={filters.text}
            onChange={(e) => change({ text: e.target.value })}
          />
        </Field>
      </div>
      <div className="mb-3">
        <ExportLinks
          list="schedules"
          namespace={namespace}
          filters={{
            status: filters.status === "all" ? "" : filters.status,
            type: filters.workflowType,
            q: filters.text,
            show: show === "late" ? "late" : "",
          }}
        />
      </div>
      <ScheduleTallyLine items={all} nowMs={nowMs} />
      <HealthFilterLine show={show} health={health} onShow={setShow} />
      <QueryState
        query={list}
        isEmpty={(data) => data.schedules.length === 0}
        empty={<p className="text-sm text-fg-muted">{t("none")}</p>}
      >
        {(data) => (
          <div className="space-y-3">
            {/* A phone gets one card per schedule: a seven-column table would hide what matters off to the side. */}
            <ScheduleCards namespace={namespace} rows={rows} nowMs={nowMs} />
            <div className="hidden md:block">
              <DataTable
                columns={columns}
                data={rows}
                density={density}
                getRowId={(row) => row.item.schedule_id}
                rowTestId="schedule-row"
                rowData={(row) => ({ "data-schedule-id": row.item.schedule_id })}
                empty={<p className="text-sm text-fg-muted">{t("noMatch")}</p>}
              />
            </div>
            <div className="flex flex-wrap items-center justify-between gap-2 text-xs text-fg-muted">
              <span data-testid="schedules-count">
                {t("count", { shown: shown.rows.length, matching: filtered.length, total: all.length })}
              </span>
              {data.next_page_token ? <span>{t("moreOnServer")}</span> : null}
              <Pager
                label={t("pager")}
                previousLabel={t("previous")}
                nextLabel={t("next")}
                onPrevious={shown.page > 0 ? () => setPage(shown.page - 1) : undefined}
                onNext={shown.page < shown.pages - 1 ? () => setPage(shown.page + 1) : undefined}
              />
            </div>
          </div>
        )}
      </QueryState>
    </Section>
  );
}

function ScheduleCards({ namespace, rows, nowMs }: { namespace: string; rows: readonly Row[]; nowMs: number }) {
  const t = useTranslations("schedules");
  return (
    <ul className="space-y-2 md:hidden" data-testid="schedule-cards">
      {rows.map(({ item, detail, lastRun }) => {
        const state = scheduleState(item.status, item.paused);
        const spec = item.spec ?? detail?.spec;
        return (
          <li
            key={item.schedule_id}
            className="space-y-2 rounded-md border border-line p-3"
            data-card-id={item.schedule_id}
          >
            <div className="flex items-start justify-between gap-2">
              <Link
                href={scheduleHref(namespace, item.schedule_id)}
                className="min-w-0 font-mono text-sm break-all text-accent hover:underline"
              >
                {item.schedule_id}
              </Link>
              <ScheduleStateBadge status={item.status} paused={item.paused} note={null} />
            </div>
            <p className="font-mono text-xs text-fg-muted">{item.workflow_type ?? item.action?.workflow_type ?? "–"}</p>
            <div className="text-sm">{spec === undefined ? "…" : <ScheduleSpecWords spec={spec} compact />}</div>
            {item.note ? <p className="text-xs break-words text-fg-muted">{item.note}</p> : null}
            <dl className="grid grid-cols-2 gap-2 text-sm">
              <div>
                <dt className="text-xs text-fg-muted">{t("col.nextFire")}</dt>
                <dd>
                  <FireTime
                    at={item.next_fire}
                    late={fireLateness(state, item.next_fire, nowMs)}
                    now={nowMs}
                    paused={state === "paused"}
                  />
                </dd>
              </div>
              <div>
                <dt className="text-xs text-fg-muted">{t("col.lastFire")}</dt>
                <dd>
                  <LastFire
                    namespace={namespace}
                    at={item.last_fire}
                    action={detail ? lastAction(detail) : undefined}
                    run={lastRun}
                    now={nowMs}
                  />
                </dd>
              </div>
            </dl>
          </li>
        );
      })}
    </ul>
  );
}

/** "3 active · 1 paused · 2 late": late ones stand out, so "did last night's run even start?" is one look. */
function ScheduleTallyLine({ items, nowMs }: { items: readonly ScheduleListItem[]; nowMs: number }) {
  const t = useTranslations("schedules.tally");
  if (items.length === 0) return null;
  const tally = scheduleTally(items, nowMs);
  return (
    <p className="mb-3 text-sm" data-testid="schedules-tally" data-late={tally.late}>
      {t("counts", { active: tally.active, paused: tally.paused })}
      {tally.late > 0 ? <span className="ml-2 font-medium text-bad">{t("late", { count: tally.late })}</span> : null}
    </p>
  );
}

/** The `?show=` filter: what it keeps, what is not known, and the way back to every schedule. */
function HealthFilterLine({
  show,
  health,
  onShow,
}: {
  show: HealthFilter | null;
  health: ScheduleHealth;
  onShow: (next: HealthFilter | null) => void;
}) {
  const t = useTranslations("schedules.health");
  return (
    <div
      className="mb-3 flex flex-wrap items-center gap-3 text-sm"
      data-testid="schedules-health-filter"
      data-show={show ?? ""}
    >
      {/* The control's name is also its aria-label; said on screen, the row reads "Show: All · Late · …". */}
      <span className="text-xs text-fg-muted" aria-hidden="true">
        {t("show")}
      </span>
      <SegmentedControl
        label={t("show")}
        value={show ?? "all"}
        options={(["all", "late", "failed"] as const).map((value) => ({ value, label: t(`showOption.${value}`) }))}
        onChange={(value) => onShow(value === "all" ? null : value)}
      />
      {show !== null && health.state === "pending" ? <span className="text-fg-muted">{t("checking")}</span> : null}
      {show !== null && health.state === "unreadable" ? <span className="text-bad">{t("unreadable")}</span> : null}
      {show === "failed" && health.state === "ok" && health.unknown.length > 0 ? (
        <span className="text-fg-muted" data-testid="schedules-health-unknown">
          {t("unknownShown", { count: health.unknown.length })}
        </span>
      ) : null}
    </div>
  );
}
