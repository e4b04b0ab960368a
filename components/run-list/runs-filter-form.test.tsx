// @vitest-environment jsdom
import { afterEach, describe, expect, it, vi } from "vitest";
import { act, cleanup, fireEvent, render, renderHook, screen } from "@testing-library/react";
import { NextIntlClientProvider } from "next-intl";
import en from "@/messages/en.json";
import type { RunsFilters } from "@/components/run-list/runs-filter-form";
import { RunsFilterForm } from "@/components/run-list/runs-filter-form";
import { useListKeyboard } from "@/components/run-list/use-list-keyboard";

afterEach(cleanup);

function Form({ filters, onApply = () => {} }: { filters: RunsFilters; onApply?: (filters: RunsFilters) => void }) {
  return (
    <NextIntlClientProvider locale="en" messages={en} timeZone="UTC">
      <RunsFilterForm
        key={JSON.stringify([filters.search, filters.workflowType, filters.taskQueue])}
        initial={filters}
        typeOptions={["CheckoutWorkflow"]}
        queueOptions={["orders"]}
        filtered={filters.search !== ""}
        onApply={onApply}
        onClear={() => {}}
      />
    </NextIntlClientProvider>
  );
}

describe("RunsFilterForm", () => {
  it("applies the trimmed fields on submit, and starts over from the URL's filters when they change", () => {
    const onApply = vi.fn();
    const { rerender } = render(<Form filters={{ search: "", workflowType: "", taskQueue: "" }} onApply={onApply} />);
    const search = screen.getByRole("searchbox") as HTMLInputElement;
    fireEvent.change(search, { target: { value: "  order:42 " } });
    fireEvent.change(screen.getByTestId("runs-queue-filter"), { target: { value: " orders " } });
    fireEvent.submit(screen.getByRole("search"));
    expect(onApply).toHaveBeenCalledWith({ search: "order:42", workflowType: "", taskQueue: "orders" });
    // Back button: the URL says something else, the typed text gives way to it.
    rerender(
      <Form filters={{ search: "order:7", workflowType: "CheckoutWorkflow", taskQueue: "" }} onApply={onApply} />,
    );
    expect((screen.getByRole("searchbox") as HTMLInputElement).value).toBe("order:7");
    expect((screen.getByRole("combobox", { name: "Workflow type" }) as HTMLInputElement).value).toBe(
      "CheckoutWorkflow",
    );
    expect((screen.getByTestId("runs-queue-filter") as HTMLInputElement).value).toBe("");
    // A search and a type that join to the same text are still different filters.
    rerender(
      <Form filters={{ search: "order:7C", workflowType: "heckoutWorkflow", taskQueue: "" }} onApply={onApply} />,
    );
    expect((screen.getByRole("searchbox") as HTMLInputElement).value).toBe("order:7C");
  });
});

describe("useListKeyboard", () => {
  it("moves with j/k and arrows within the list, opens with Enter, pages with →/← only when possible", () => {
    const onOpen = vi.fn();
    const onNext = vi.fn();
    const { result, rerender } = renderHook(
      (props: { onPrevious?: () => void }) =>
        useListKeyboard({ count: 3, onOpen, onNext, onPrevious: props.onPrevious }),
      { initialProps: {} },
    );
    const press = (key: string, target: Window | Element = window) => fireEvent.keyDown(target, { key });
    press("j");
    press("ArrowDown");
    press("j");
    expect(result.current.selected).toBe(2);
    press("k");
    expect(result.current.selected).toBe(1);
    press("Enter");
    expect(onOpen).toHaveBeenCalledWith(1);
    press("ArrowRight");
    expect(onNext).toHaveBeenCalledOnce();
    press("ArrowLeft");
    const onPrevious = vi.fn();
    rerender({ onPrevious });
    press("ArrowLeft");
    expect(onPrevious).toHaveBeenCalledOnce();
    const field = document.createElement("input");
    document.body.append(field);
    press("j", field);
    expect(result.current.selected).toBe(1);
    field.remove();
  });

  it("moves one row per key even when two keys arrive before a re-render", () => {
    const { result } = renderHook(() => useListKeyboard({ count: 5, onOpen: vi.fn() }));
    act(() => {
      window.dispatchEvent(new KeyboardEvent("keydown", { key: "j" }));
      window.dispatchEvent(new KeyboardEvent("keydown", { key: "j" }));
    });
    expect(result.current.selected).toBe(2);
    act(() => {
      for (let i = 0; i < 9; i++) window.dispatchEvent(new KeyboardEvent("keydown", { key: "j" }));
    });
    expect(result.current.selected).toBe(4);
    act(() => {
      window.dispatchEvent(new KeyboardEvent("keydown", { key: "k" }));
      window.dispatchEvent(new KeyboardEvent("keydown", { key: "k" }));
    });
    expect(result.current.selected).toBe(2);
  });
});
