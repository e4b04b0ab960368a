// @vitest-environment jsdom
import { afterEach, describe, expect, it } from "vitest";
import { cleanup, fireEvent, render, screen, within } from "@testing-library/react";
import { NextIntlClientProvider } from "next-intl";
import en from "@/messages/en.json";
import { exceptionRows } from "@/lib/views/exceptions";
import type { ExceptionSource } from "@/lib/views/exceptions";
import nonRetryable from "@/lib/views/fixtures/non-retryable.json";
import { ROWS_PER_STEP } from "@/components/ui/show-more";
import { EXCEPTIONS_FIRST_ROWS, ExceptionsTable } from "@/components/run-detail/exceptions-table";

afterEach(cleanup);

function renderTable(source: ExceptionSource) {
  return render(
    <NextIntlClientProvider locale="en" messages={en} timeZone="UTC">
      <ExceptionsTable rows={exceptionRows(source)} complete />
    </NextIntlClientProvider>,
  );
}

describe("ExceptionsTable", () => {
  it("renders the first 3 of a long list (so the tabs stay in the first screen) and 50 more per request", () => {
    const failures = Array.from({ length: 62 }, (_, i) => ({
      id: `f${i}`,
      source_kind: "activity_execution",
      message: `failure ${i}`,
      exception_class: "Boom",
      created_at: `2026-01-15T10:00:${String(i % 60).padStart(2, "0")}.000000Z`,
    }));
    renderTable({ failures });
    expect(screen.getAllByTestId("exception-row")).toHaveLength(EXCEPTIONS_FIRST_ROWS);
    expect(screen.getByRole("heading", { name: /Exceptions \(62\)/ })).toBeTruthy();
    expect(EXCEPTIONS_FIRST_ROWS).toBe(3);
    fireEvent.click(screen.getByRole("button", { name: "Show 50 more (59 not shown)" }));
    expect(screen.getAllByTestId("exception-row")).toHaveLength(EXCEPTIONS_FIRST_ROWS + ROWS_PER_STEP);
    fireEvent.click(screen.getByRole("button", { name: "Show 9 more (9 not shown)" }));
    expect(screen.getAllByTestId("exception-row")).toHaveLength(62);
    expect(screen.queryByTestId("exceptions-show-more")).toBeNull();
  });

  it("shows the failure category, the non-retryable badge and the handled flag from a recorded run", () => {
    renderTable(nonRetryable as ExceptionSource);
    const rows = screen.getAllByTestId("exception-row");
    const declined = rows.find((row) => row.textContent?.includes("PaymentDeclined"));
    expect(declined).toBeDefined();
    const row = within(declined!);
    expect(row.getByTestId("exception-category").textContent).toContain("activity");
    expect(row.getByTestId("non-retryable-badge").textContent).toBe("non-retryable");
    expect(row.getByText("yes")).toBeTruthy();
  });

  it("shows `-` for an unclassified failure and renders hostile text as text", () => {
    const hostile = '<img src=x onerror="alert(1)">';
    const { container } = renderTable({
      failures: [
        {
          id: "f1",
          source_kind: "workflow_run",
          message: hostile,
          exception_class: "Boom",
          trace_preview: `Boom->run @ ${hostile}:1`,
        },
      ],
    });
    expect(screen.getByTestId("exception-category").textContent).toBe("-");
    expect(screen.queryByTestId("non-retryable-badge")).toBeNull();
    fireEvent.click(screen.getByRole("button", { name: "Show details" }));
    expect(screen.getByTestId("exception-detail").textContent).toContain(hostile);
    expect(container.querySelector("img")).toBeNull();
  });
});
