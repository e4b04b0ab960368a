// @vitest-environment jsdom
import { afterEach, describe, expect, it } from "vitest";
import { cleanup, render, screen } from "@testing-library/react";
import { NextIntlClientProvider } from "next-intl";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import en from "@/messages/en.json";
import { endpointQueryKey } from "@/lib/queries/endpoint-query";
import { AttributeValues } from "@/components/search-attributes/attribute-values";

afterEach(cleanup);

function renderValues(values: unknown, timeZone: string, registry: unknown) {
  const client = new QueryClient({ defaultOptions: { queries: { staleTime: Infinity, retry: false } } });
  if (registry) client.setQueryData(endpointQueryKey("default", "searchAttributes", {}), registry);
  return render(
    <NextIntlClientProvider locale="en" messages={en} timeZone={timeZone}>
      <QueryClientProvider client={client}>
        <AttributeValues namespace="default" values={values} />
      </QueryClientProvider>
    </NextIntlClientProvider>,
  );
}

const registry = {
  system_attributes: { WorkflowType: "keyword" },
  custom_attributes: { DueAt: "datetime", Tags: "keyword_list", Priority: "int", Urgent: "bool" },
};

const row = (name: string) =>
  screen.getByTestId("run-search-attributes").querySelector(`[data-attribute="${name}"] dd > *`);

describe("a run's search attributes on its header", () => {
  it("renders dates in the operator's zone, keyword lists as chips, numbers and booleans by type", () => {
    const values = { DueAt: "2026-12-07T10:00:00.000000Z", Tags: ["fragile", "gift"], Priority: 1200, Urgent: false };
    renderValues(values, "Asia/Tokyo", registry);
    expect(row("DueAt")?.getAttribute("data-kind")).toBe("datetime");
    expect(row("DueAt")?.textContent).toContain("19:00");
    expect(row("Tags")?.getAttribute("data-kind")).toBe("chips");
    expect([...(row("Tags")?.children ?? [])].map((c) => c.textContent)).toEqual(["fragile", "gift"]);
    expect(row("Priority")?.textContent).toBe("1,200");
    expect(row("Urgent")?.textContent).toBe("no");
  });

  it("without the registry, says what it knows only: a date-looking string stays text", () => {
    renderValues({ DueAt: "2026-12-07T10:00:00Z" }, "UTC", null);
    expect(row("DueAt")?.getAttribute("data-kind")).toBe("text");
    expect(row("DueAt")?.textContent).toBe("2026-12-07T10:00:00Z");
  });
});
