// @vitest-environment jsdom
import { afterEach, describe, expect, it, vi } from "vitest";
import { cleanup, fireEvent, render, screen } from "@testing-library/react";
import { NextIntlClientProvider } from "next-intl";
import en from "@/messages/en.json";
import { DwForbiddenError, errorFromResponse } from "@/lib/dw/errors";
import type { QueryLike } from "@/components/dw/query-state";
import { QueryState } from "@/components/dw/query-state";

afterEach(cleanup);

function renderState(query: QueryLike<string[]>, extra: { renderError?: (error: unknown) => React.ReactNode } = {}) {
  return render(
    <NextIntlClientProvider locale="en" messages={en} timeZone="UTC">
      <QueryState query={query} isEmpty={(data) => data.length === 0} empty={<p>nothing here</p>} {...extra}>
        {(data) => (
          <ul>
            {data.map((item) => (
              <li key={item}>{item}</li>
            ))}
          </ul>
        )}
      </QueryState>
    </NextIntlClientProvider>,
  );
}

describe("QueryState", () => {
  it("says it is loading until the first data", () => {
    renderState({ data: undefined, error: null });
    expect(screen.getByText("Loading…")).toBeTruthy();
  });

  it("shows the DwErrorState with a retry when it failed with nothing to show", () => {
    const refetch = vi.fn();
    renderState({ data: undefined, error: new DwForbiddenError("role viewer may not read"), refetch });
    expect(screen.getByTestId("dw-error").getAttribute("data-reason")).toBe("forbidden");
    expect(screen.getByTestId("dw-error").textContent).toContain("role viewer may not read");
    fireEvent.click(screen.getByRole("button", { name: "Try again" }));
    expect(refetch).toHaveBeenCalledOnce();
  });

  it("says what to change on a 422, with the server's field errors, and offers no retry", () => {
    // The embedded server's answer to a search over 255 characters (the real one's Laravel shape).
    const refused = errorFromResponse(422, {
      message: "The query field must not be greater than 255 characters.",
      reason: "validation_failed",
      errors: { query: ["The query field must not be greater than 255 characters."] },
    });
    renderState({ data: undefined, error: refused, refetch: vi.fn() });
    const state = screen.getByTestId("dw-error");
    expect(state.getAttribute("data-reason")).toBe("validation_failed");
    expect(state.textContent).toContain("The server did not accept this request");
    expect(screen.getByTestId("dw-error-fields").textContent).toContain(
      "query: The query field must not be greater than 255 characters.",
    );
    expect(screen.queryByRole("button", { name: "Try again" })).toBeNull();
    cleanup();
    // The same from a server page's ErrorInfo (plain data), as the runs page's first render hands it over.
    renderState({
      data: undefined,
      error: {
        reason: "validation_failed",
        httpStatus: 422,
        message: "bad",
        namespace: null,
        fieldErrors: { q: ["too long"] },
      },
      refetch: vi.fn(),
    });
    expect(screen.getByTestId("dw-error-fields").textContent).toContain("q: too long");
    expect(screen.queryByRole("button", { name: "Try again" })).toBeNull();
  });

  it("keeps an ErrorInfo a server page made as it is, and lets a screen render its own error", () => {
    renderState({
      data: undefined,
      error: { reason: "run_not_found", httpStatus: 404, message: "no", namespace: null },
    });
    expect(screen.getByTestId("dw-error").getAttribute("data-reason")).toBe("run_not_found");
    cleanup();
    renderState({ data: undefined, error: new Error("x") }, { renderError: () => <p>requires admin</p> });
    expect(screen.getByText("requires admin")).toBeTruthy();
  });

  it("shows the empty state, the data, and the last data marked stale when a refresh failed", () => {
    renderState({ data: [], error: null });
    expect(screen.getByText("nothing here")).toBeTruthy();
    cleanup();
    renderState({ data: ["a", "b"], error: null });
    expect(screen.getAllByRole("listitem")).toHaveLength(2);
    expect(screen.queryByTestId("query-stale")).toBeNull();
    cleanup();
    renderState({ data: ["a"], error: new Error("timeout") });
    expect(screen.getByTestId("query-stale").textContent).toContain("timeout");
    expect(screen.getAllByRole("listitem")).toHaveLength(1);
  });
});
