// @vitest-environment jsdom
import { afterEach, describe, expect, it } from "vitest";
import { cleanup, render, screen } from "@testing-library/react";
import { DataTable, dataColumns } from "@/components/ui/data-table";
import { columnKit } from "@/components/kikwiflow/column-kit";

afterEach(cleanup);

interface Row {
  id: string;
  task: string | null;
  at: string | null;
}
const col = dataColumns<Row>();
const labels = { task: "Task", at: "At" } as const;
const kit = columnKit<Row, keyof typeof labels>(col, (key) => labels[key], {
  dateTime: (value) => (value === null || value === undefined ? "–" : `time:${value}`),
});
const columns = col.columns([kit.text("task", (row) => row.task, "break-words"), kit.dateTime("at", (row) => row.at)]);

function cells(): (string | null)[][] {
  return screen.getAllByTestId("row").map((row) => [...row.querySelectorAll("td")].map((td) => td.textContent));
}

describe("columnKit", () => {
  it("labels each column by its id, shows a dash for a missing text and formats the time", () => {
    const data: Row[] = [
      { id: "1", task: "charge", at: "2026-01-01T00:00:00Z" },
      { id: "2", task: null, at: null },
    ];
    render(<DataTable columns={columns} data={data} getRowId={(row) => row.id} rowTestId="row" />);
    expect(screen.getAllByRole("columnheader").map((th) => th.textContent)).toEqual(["Task", "At"]);
    expect(cells()).toEqual([
      ["charge", "time:2026-01-01T00:00:00Z"],
      ["–", "–"],
    ]);
  });

  it("gives a text column its class only when asked, and a time column no-wrap", () => {
    render(
      <DataTable
        columns={columns}
        data={[{ id: "1", task: "t", at: null }]}
        getRowId={(row) => row.id}
        rowTestId="row"
      />,
    );
    const [text, time] = [...screen.getByTestId("row").querySelectorAll("td")];
    expect(text?.className).toContain("break-words");
    expect(time?.className).toContain("whitespace-nowrap");
    const bare = columnKit<Row, "task">(col, () => "Task", { dateTime: String }).text("task", (row) => row.task);
    expect(bare.meta).toBeUndefined();
  });
});
