"use client";

import { Fragment, useEffect, useRef } from "react";
import type { ReactNode, RefObject } from "react";
import { createColumnHelper, tableFeatures, useTable } from "@tanstack/react-table";
import type { ColumnDef, RowData } from "@tanstack/react-table";

/** What a column may say about its cells beyond the value: extra classes for its `<td>` and `<th>`. */
export interface DataColumnMeta {
  className?: string;
  headerClassName?: string;
}

/**
 * The one feature set every console table uses. No sorting: every list the console shows is one
 * page of what the server ordered (runs, attention, workers, incidents), and sorting a page in the
 * browser would put page 1's oldest row above rows that page 2 holds. No table ever asked for it,
 * and TanStack Table 9 registers features statically, so its code went to every route with a table.
 */
export const dataTableFeatures = tableFeatures({
  columnMeta: {} as DataColumnMeta,
});
export type DataTableFeatures = typeof dataTableFeatures;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- columns of one table hold values of different types.
export type DataColumn<T extends RowData> = ColumnDef<DataTableFeatures, T, any>;

/** A typed column helper for rows of `T`: `const col = dataColumns<Row>(); col.accessor("id", {...})`. */
export function dataColumns<T extends RowData>() {
  return createColumnHelper<DataTableFeatures, T>();
}

export type DataTableDensity = "dense" | "normal";

const HEAD: Record<DataTableDensity, string> = {
  dense: "px-2 py-1.5 text-left text-xs font-semibold whitespace-nowrap text-fg-muted uppercase",
  normal: "px-3 py-2 text-left text-xs font-semibold whitespace-nowrap text-fg-muted uppercase",
};
// Every cell keeps the row's 20 px line (a `text-xs` column included: Tailwind's text size takes the
// leading set beside it), so small text sits on the same first line as its neighbours under align-top.
const CELL: Record<DataTableDensity, string> = {
  dense: "px-2 py-1.5 align-top leading-5",
  normal: "px-3 py-2 align-top leading-5",
};

export interface DataTableProps<T extends RowData> {
  columns: readonly DataColumn<T>[];
  data: readonly T[];
  /** A stable id per row (React key and TanStack row id). */
  getRowId: (row: T, index: number) => string;
  testId?: string;
  /** `data-testid` of every body row. */
  rowTestId?: string;
  /** Extra `data-*` attributes per row (e.g. a status the tests read). */
  rowData?: (row: T, index: number) => Record<`data-${string}`, string | number | undefined>;
  /** Shown instead of the table when there are no rows; without it an empty table renders nothing. */
  empty?: ReactNode;
  density?: DataTableDensity;
  /** The header stays in view while the rows scroll (the table scrolls inside its own box). */
  stickyHeader?: boolean;
  /** Every cell on one line (a wide table scrolls sideways instead). */
  nowrap?: boolean;
  /** The keyboard-focused row (marked `aria-selected` and kept scrolled into view). */
  selectedIndex?: number;
  onRowClick?: (index: number) => void;
  /** A full-width detail row under a row, or null for none. */
  renderDetail?: (row: T) => ReactNode;
  caption?: ReactNode;
  className?: string;
}

/**
 * Gives the box a tab stop while it scrolls (its content is wider or taller than it). A scrolling box
 * must be reachable from the keyboard to be scrolled; one that fits stays out of the tab order.
 * Set on the element, not through state: a state change re-rendered every cell of the table once
 * after hydration (the run page's exceptions, ≈ 400 fibers, on the way to its first ledger).
 */
function useTabStopWhileScrolling(ref: RefObject<HTMLElement | null>, rows: number): void {
  useEffect(() => {
    const box = ref.current;
    if (!box || typeof ResizeObserver === "undefined") return;
    const measure = () => {
      if (box.scrollWidth > box.clientWidth || box.scrollHeight > box.clientHeight) box.tabIndex = 0;
      else box.removeAttribute("tabindex");
    };
    const observer = new ResizeObserver(measure);
    observer.observe(box);
    if (box.firstElementChild) observer.observe(box.firstElementChild);
    measure();
    return () => observer.disconnect();
    // Re-measured when rows come and go (the box itself is absent while the empty state shows).
  }, [ref, rows]);
}

/** A console table on TanStack Table 9: one look, density, sticky header and row focus. */
export function DataTable<T extends RowData>(props: DataTableProps<T>) {
  const { columns, data, getRowId } = props;
  const table = useTable({
    features: dataTableFeatures,
    columns: columns as DataColumn<T>[],
    data: data as T[],
    getRowId,
  });
  const bodyRef = useRef<HTMLTableSectionElement>(null);
  const boxRef = useRef<HTMLDivElement>(null);
  useTabStopWhileScrolling(boxRef, data.length);
  useEffect(() => {
    if (props.selectedIndex === undefined) return;
    bodyRef.current?.querySelector(`[data-row-index="${props.selectedIndex}"]`)?.scrollIntoView?.({ block: "nearest" });
  }, [props.selectedIndex]);

  if (data.length === 0 && props.empty !== undefined) return <>{props.empty}</>;
  const density = props.density ?? "dense";
  const rows = table.getRowModel().rows;
  const width = table.getAllLeafColumns().length;
  const scroll = props.stickyHeader ? "max-h-[70vh] overflow-auto" : "overflow-x-auto";
  return (
    <div ref={boxRef} className={`${scroll} ${props.className ?? ""}`}>
      <table className="w-full text-left text-sm" data-testid={props.testId}>
        {props.caption ? <caption className="mb-1 text-left text-xs text-fg-muted">{props.caption}</caption> : null}
        <thead className={`border-b border-line bg-panel-muted ${props.stickyHeader ? "sticky top-0 z-10" : ""}`}>
          {table.getHeaderGroups().map((group) => (
            <tr key={group.id}>
              {group.headers.map((header) => (
                <th
                  key={header.id}
                  scope="col"
                  colSpan={header.colSpan}
                  className={`${HEAD[density]} ${header.column.columnDef.meta?.headerClassName ?? ""}`}
                >
                  {header.isPlaceholder ? null : <table.FlexRender header={header} />}
                </th>
              ))}
            </tr>
          ))}
        </thead>
        <tbody ref={bodyRef}>
          {rows.map((row, index) => {
            const selected = props.selectedIndex === undefined ? undefined : index === props.selectedIndex;
            const detail = props.renderDetail?.(row.original) ?? null;
            return (
              <Fragment key={row.id}>
                <tr
                  data-testid={props.rowTestId}
                  data-row-index={index}
                  aria-selected={selected}
                  onClick={props.onRowClick ? () => props.onRowClick?.(index) : undefined}
                  className={rowClass(selected, detail !== null)}
                  {...props.rowData?.(row.original, index)}
                >
                  {row.getAllCells().map((cell) => (
                    <td
                      key={cell.id}
                      className={`${CELL[density]} ${props.nowrap ? "whitespace-nowrap" : ""} ${cell.column.columnDef.meta?.className ?? ""}`}
                    >
                      <table.FlexRender cell={cell} />
                    </td>
                  ))}
                </tr>
                {detail !== null ? (
                  <tr className="border-b border-line bg-panel-muted/50 last:border-0">
                    <td colSpan={width} className="px-2 py-3">
                      {detail}
                    </td>
                  </tr>
                ) : null}
              </Fragment>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

function rowClass(selected: boolean | undefined, hasDetail: boolean): string {
  const border = hasDetail ? "border-b border-line" : "border-b border-line last:border-0";
  if (selected === undefined) return border;
  return `${border} ${selected ? "bg-accent-soft/60" : "hover:bg-panel-muted"}`;
}
