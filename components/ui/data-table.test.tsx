// @vitest-environment jsdom
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { cleanup, fireEvent, render, screen, within } from "@testing-library/react";
import { DataTable, dataColumns } from "@/components/ui/data-table";

afterEach(cleanup);

interface Fruit {
  id: string;
  name: string;
  count: number;
}
const col = dataColumns<Fruit>();
const columns = col.columns([
  col.accessor("name", { header: "Name" }),
  col.accessor("count", { header: "Count", meta: { className: "tabular-nums" } }),
]);
const FRUIT: Fruit[] = [
  { id: "b", name: "banana", count: 3 },
  { id: "a", name: "apple", count: 10 },
  { id: "c", name: "cherry", count: 1 },
];

const names = () => screen.getAllByTestId("fruit-row").map((row) => within(row).getAllByRole("cell")[0]?.textContent);

describe("DataTable", () => {
  it("renders headers, rows with their test id and data attributes, and column classes", () => {
    render(
      <DataTable
        columns={columns}
        data={FRUIT}
        getRowId={(row) => row.id}
        testId="fruit"
        rowTestId="fruit-row"
        rowData={(row) => ({ "data-count": row.count })}
      />,
    );
    expect(screen.getAllByRole("columnheader").map((th) => th.textContent)).toEqual(["Name", "Count"]);
    expect(names()).toEqual(["banana", "apple", "cherry"]);
    expect(screen.getAllByTestId("fruit-row")[1]?.getAttribute("data-count")).toBe("10");
    expect(screen.getAllByRole("cell")[1]?.className).toContain("tabular-nums");
    // Headers are plain text: no table sorts a page of what the server ordered.
    expect(screen.queryAllByRole("button")).toHaveLength(0);
  });

  it("shows the empty state instead of an empty table", () => {
    render(<DataTable columns={columns} data={[]} getRowId={(row) => row.id} testId="fruit" empty={<p>No fruit</p>} />);
    expect(screen.getByText("No fruit")).toBeTruthy();
    expect(screen.queryByTestId("fruit")).toBeNull();
  });

  it("marks the selected row, reports clicks, and renders a full-width detail row", () => {
    const onRowClick = vi.fn();
    render(
      <DataTable
        columns={columns}
        data={FRUIT}
        getRowId={(row) => row.id}
        rowTestId="fruit-row"
        selectedIndex={1}
        onRowClick={onRowClick}
        renderDetail={(row) => (row.id === "a" ? <p>about apples</p> : null)}
      />,
    );
    const rows = screen.getAllByTestId("fruit-row");
    expect(rows.map((row) => row.getAttribute("aria-selected"))).toEqual(["false", "true", "false"]);
    fireEvent.click(rows[2]!);
    expect(onRowClick).toHaveBeenCalledWith(2);
    const detail = screen.getByText("about apples").closest("td");
    expect(detail?.getAttribute("colspan")).toBe("2");
    expect(screen.getAllByRole("row")).toHaveLength(1 + 3 + 1);
  });

  it("keeps the header in view when asked (sticky header in its own scroll box)", () => {
    const { container } = render(
      <DataTable columns={columns} data={FRUIT} getRowId={(row) => row.id} stickyHeader density="normal" />,
    );
    expect(container.querySelector("thead")?.className).toContain("sticky");
    expect(container.firstElementChild?.className).toContain("overflow-auto");
    expect(container.querySelector("td")?.className).toContain("px-3");
  });

  describe("in a box that may scroll (300 px wide)", () => {
    const contentWidth = (value: number) =>
      Object.defineProperty(HTMLElement.prototype, "scrollWidth", { configurable: true, get: () => value });
    beforeEach(() => {
      vi.stubGlobal(
        "ResizeObserver",
        class {
          observe() {}
          disconnect() {}
        },
      );
      Object.defineProperty(HTMLElement.prototype, "clientWidth", { configurable: true, get: () => 300 });
    });
    afterEach(() => {
      delete (HTMLElement.prototype as { scrollWidth?: number }).scrollWidth;
      delete (HTMLElement.prototype as { clientWidth?: number }).clientWidth;
      vi.unstubAllGlobals();
    });

    it("takes its tab stop without rendering its cells again", () => {
      contentWidth(900);
      let cells = 0;
      const counted = col.columns([
        col.accessor("name", {
          header: "Name",
          cell: (info) => {
            cells += 1;
            return info.getValue();
          },
        }),
      ]);
      const { container } = render(<DataTable columns={counted} data={FRUIT} getRowId={(row) => row.id} />);
      expect(container.firstElementChild?.getAttribute("tabindex")).toBe("0");
      expect(cells).toBe(FRUIT.length);
    });

    it("takes a tab stop only when its box scrolls, so a keyboard can scroll a wide table", () => {
      contentWidth(300);
      const fits = render(<DataTable columns={columns} data={FRUIT} getRowId={(row) => row.id} />);
      expect(fits.container.firstElementChild?.getAttribute("tabindex")).toBeNull();
      cleanup();
      contentWidth(900);
      const wide = render(<DataTable columns={columns} data={FRUIT} getRowId={(row) => row.id} />);
      expect(wide.container.firstElementChild?.getAttribute("tabindex")).toBe("0");
    });
  });
});
