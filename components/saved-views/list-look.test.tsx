// @vitest-environment jsdom
import { afterEach, describe, expect, it } from "vitest";
import { cleanup, fireEvent, render, screen } from "@testing-library/react";
import { NextIntlClientProvider } from "next-intl";
import en from "@/messages/en.json";
import { ListLook } from "@/components/saved-views/list-look";

/** A column's box follows the click at once, then whatever the URL says once it changes. */
describe("ListLook columns", () => {
  afterEach(cleanup);
  const columns = [
    { id: "task_queue", label: "Task queue" },
    { id: "business_key", label: "Business key" },
  ];

  function look(hidden: ReadonlySet<string>, onHidden: (next: Set<string>) => void = () => {}) {
    return (
      <NextIntlClientProvider locale="en" messages={en}>
        <ListLook density="dense" onDensity={() => {}} columns={columns} hidden={hidden} onHidden={onHidden} />
      </NextIntlClientProvider>
    );
  }

  it("unchecks on the click before the URL has changed, then shows the URL's choice", () => {
    const asked: string[][] = [];
    const view = render(look(new Set(), (next) => asked.push([...next])));
    fireEvent.click(screen.getByTestId("columns-menu"));
    const box = screen.getByRole("checkbox", { name: "Task queue" }) as HTMLInputElement;
    fireEvent.click(box);
    expect(asked).toEqual([["task_queue"]]);
    expect(box.checked).toBe(false);

    // The URL caught up, then a saved view put every column back: the URL wins each time.
    view.rerender(look(new Set(["task_queue"])));
    expect((screen.getByRole("checkbox", { name: "Task queue" }) as HTMLInputElement).checked).toBe(false);
    view.rerender(look(new Set()));
    expect((screen.getByRole("checkbox", { name: "Task queue" }) as HTMLInputElement).checked).toBe(true);
  });
});
