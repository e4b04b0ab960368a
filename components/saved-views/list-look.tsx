"use client";

import { useState } from "react";
import { useTranslations } from "next-intl";
import { Menu, MENU_ITEM } from "@/components/ui/menu";
import { SegmentedControl } from "@/components/ui/segmented-control";
import type { Density } from "@/lib/saved-views/saved-views";

export interface ChoosableColumn {
  id: string;
  label: string;
}

/**
 * A list's look, kept in its URL with its filters (and so in a saved view): row density and which
 * columns are shown. Reusable by any DataTable screen: give it the columns an operator may leave out
 * (never the ones that name a row) and filter the table's columns by `hidden`.
 */
export function ListLook({
  density,
  onDensity,
  columns,
  hidden,
  onHidden,
}: {
  density: Density;
  onDensity: (density: Density) => void;
  columns: readonly ChoosableColumn[];
  hidden: ReadonlySet<string>;
  onHidden: (hidden: Set<string>) => void;
}) {
  const t = useTranslations("savedViews");
  const [open, setOpen] = useState(false);
  // The URL is the truth, but a router round trip lies between a click and it: the box shows the
  // click at once, until the URL it was made against changes (then the URL's choice shows).
  const urlKey = [...hidden].sort().join(",");
  const [clicked, setClicked] = useState<{ againstUrl: string; hidden: ReadonlySet<string> } | null>(null);
  // Once the URL moved, the click is spent: coming back to the same URL later must not revive it.
  if (clicked !== null && clicked.againstUrl !== urlKey) setClicked(null);
  const current = clicked !== null && clicked.againstUrl === urlKey ? clicked.hidden : hidden;
  const shown = columns.length - columns.filter((column) => current.has(column.id)).length;
  return (
    <div className="flex flex-wrap items-end gap-2" data-testid="list-look">
      <SegmentedControl
        label={t("density")}
        value={density}
        onChange={onDensity}
        options={[
          { value: "dense", label: t("dense") },
          { value: "normal", label: t("normal") },
        ]}
      />
      {columns.length > 0 ? (
        <Menu
          label={t("columns")}
          summary={t("columnsShown", { shown, total: columns.length })}
          open={open}
          onOpenChange={setOpen}
          triggerTestId="columns-menu"
          panelClassName="min-w-48 p-1"
        >
          {columns.map((column) => (
            <label
              key={column.id}
              className="flex cursor-pointer items-center gap-2 rounded px-2 py-1 text-sm hover:bg-panel-muted"
            >
              <input
                {...MENU_ITEM}
                type="checkbox"
                checked={!current.has(column.id)}
                onChange={(event) => {
                  const next = new Set(current);
                  if (event.target.checked) next.delete(column.id);
                  else next.add(column.id);
                  setClicked({ againstUrl: urlKey, hidden: next });
                  onHidden(next);
                }}
              />
              {column.label}
            </label>
          ))}
        </Menu>
      ) : null}
    </div>
  );
}
