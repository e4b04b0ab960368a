// @vitest-environment jsdom
import { afterEach, describe, expect, it } from "vitest";
import { cleanup, fireEvent, render, screen } from "@testing-library/react";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { NextIntlClientProvider } from "next-intl";
import en from "@/messages/en.json";
import { ConnectionIndicator } from "@/components/shell/connection-indicator";

const clients: QueryClient[] = [];
afterEach(() => {
  cleanup();
  for (const client of clients.splice(0)) client.clear();
});

function renderIndicator() {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  clients.push(client);
  return render(
    <NextIntlClientProvider locale="en" messages={en} timeZone="UTC">
      <QueryClientProvider client={client}>
        <ConnectionIndicator serverHost="dw.example:8080" />
      </QueryClientProvider>
    </NextIntlClientProvider>,
  );
}

describe("ConnectionIndicator", () => {
  // The panel's code is loaded only once wanted: the indicator is in every route's first screen, closed.
  it("draws its details panel only once opened, and keeps it drawn after closing", async () => {
    renderIndicator();
    const button = screen.getByTestId("connection-indicator");
    const panel = document.getElementById(button.getAttribute("aria-controls") ?? "");
    expect(panel?.hidden).toBe(true);
    expect(panel?.textContent).toBe("");

    fireEvent.click(button);
    expect(panel?.hidden).toBe(false);
    expect(await screen.findByText("Last checked")).toBeTruthy();
    expect(panel?.textContent).toContain("dw.example:8080");

    fireEvent.keyDown(document, { key: "Escape" });
    expect(panel?.hidden).toBe(true);
    expect(panel?.textContent).toContain("Last checked");
  });
});
