import type { RowData } from "@tanstack/react-table";
import type { useTimeFormat } from "@/components/hooks/use-time-format";
import type { dataColumns } from "@/components/ui/data-table";

type ColumnHelper<T extends RowData> = ReturnType<typeof dataColumns<T>>;
type TimeFormat = Pick<ReturnType<typeof useTimeFormat>, "dateTime">;
type Text = string | null | undefined;

/**
 * The two columns every Kikwiflow table repeats: an optional text shown as a dash when the engine
 * sent none (a task id, a message), and a point in time. The column id is also its label key.
 */
export function columnKit<T extends RowData, Key extends string>(
  col: ColumnHelper<T>,
  label: (key: Key) => string,
  time: TimeFormat,
) {
  return {
    text: (id: Key, value: (row: T) => Text, className?: string) =>
      col.display({
        id,
        header: () => label(id),
        cell: ({ row }) => value(row.original) ?? "–",
        ...(className === undefined ? {} : { meta: { className } }),
      }),
    dateTime: (id: Key, value: (row: T) => Text) =>
      col.display({
        id,
        header: () => label(id),
        cell: ({ row }) => time.dateTime(value(row.original)),
        meta: { className: "whitespace-nowrap" },
      }),
  };
}
