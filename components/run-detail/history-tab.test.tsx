// @vitest-environment jsdom
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { cleanup, fireEvent, render, screen, within } from "@testing-library/react";
import { NextIntlClientProvider } from "next-intl";
import en from "@/messages/en.json";
import de from "@/messages/de.json";
import { loadMessages } from "@/lib/i18n/messages";
import { HistoryBuffer } from "@/components/run-detail/history-buffer";
import { toViewEvents } from "@/lib/views/events";
import { HistoryRow, HistoryView, pageStep, rowStep } from "@/components/run-detail/history-tab";
import retried from "@/lib/views/fixtures/retry-then-success.json";
import type * as PayloadModule from "@/components/run-detail/payload";

// The pane asks the console's decode route (POST /api/payload/decode); here the route's own
// computation answers, and a switch makes the request fail (signed out, console restarting).
const codec = vi.hoisted(() => ({ fail: false }));
vi.mock("@/components/run-detail/payload", async (importOriginal) => {
  const actual = await importOriginal<typeof PayloadModule>();
  const { decodeForDisplay } = await import("@/lib/dw/payload-display");
  return {
    ...actual,
    decodePayloadTree: (payload: unknown) =>
      codec.fail ? Promise.reject(new Error("payload decode: HTTP 503")) : Promise.resolve(decodeForDisplay(payload)),
  };
});

afterEach(() => {
  cleanup();
  codec.fail = false;
});
// jsdom has no layout, so no scrollIntoView; paging calls it to bring the list into view.
const scrollIntoView = vi.fn();
beforeAll(() => {
  Element.prototype.scrollIntoView = scrollIntoView;
});

const TYPES = [
  "WorkflowStarted",
  "ActivityScheduled",
  "ActivityStarted",
  "ActivityFailed",
  "ActivityRetryScheduled",
  "ActivityCompleted",
];

function historyOf(count: number) {
  const buffer = new HistoryBuffer();
  buffer.add(
    Array.from({ length: count }, (_, i) => ({ sequence: i + 1, type: TYPES[i % TYPES.length], payload: {} })),
  );
  return { buffer, version: 1, loading: false, tailing: false, error: null };
}

function renderView(
  props: {
    types?: string[];
    selected?: number | null;
    locale?: "en" | "de";
    history?: ReturnType<typeof historyOf>;
  } = {},
) {
  const changes: { types?: string[]; failuresOnly?: boolean; selected?: number | null }[] = [];
  const locale = props.locale ?? "en";
  render(
    <NextIntlClientProvider locale={locale} messages={locale === "en" ? en : loadMessages("de")} timeZone="UTC">
      <HistoryView
        history={props.history ?? historyOf(60)}
        types={props.types ?? []}
        failuresOnly={false}
        selected={props.selected ?? null}
        onChange={(change) => changes.push(change)}
      />
    </NextIntlClientProvider>,
  );
  return changes;
}

describe("pageStep (←/→ in the history list)", () => {
  const view = { count: 100, scrollTop: 0, viewHeight: 480, rowHeight: 30 };

  it("moves the selection a page (the rows in view) and clamps at both ends", () => {
    expect(pageStep({ ...view, current: 0, direction: 1 })?.index).toBe(16);
    expect(pageStep({ ...view, current: 95, direction: 1, scrollTop: 2520 })?.index).toBe(99);
    expect(pageStep({ ...view, current: 3, direction: -1 })).toEqual({ index: 0, scrollTop: 0 });
    expect(pageStep({ ...view, count: 0, current: -1, direction: 1 })).toBeNull();
  });

  it("without a selection picks the first row in view", () => {
    expect(pageStep({ ...view, current: -1, direction: 1, scrollTop: 600 })).toEqual({ index: 20, scrollTop: 600 });
    expect(pageStep({ ...view, current: -1, direction: -1, scrollTop: 610 })?.index).toBe(21);
  });

  it("scrolls a page with the selection, keeping its place on screen, within the list's extent", () => {
    // Row 2 sits 60 px below the top; after → row 18 does too.
    expect(pageStep({ ...view, current: 2, direction: 1 })).toEqual({ index: 18, scrollTop: 480 });
    expect(pageStep({ ...view, current: 18, direction: -1, scrollTop: 480 })).toEqual({ index: 2, scrollTop: 0 });
    // Never past the end: 100 rows of 30 px in a 480 px view scroll at most 2,520 px.
    expect(pageStep({ ...view, current: 90, direction: 1, scrollTop: 2400 })).toEqual({ index: 99, scrollTop: 2520 });
    // A target already in view does not scroll.
    expect(pageStep({ ...view, current: 90, direction: 1, scrollTop: 2520 })).toEqual({ index: 99, scrollTop: 2520 });
    expect(pageStep({ ...view, current: 80, direction: 1, scrollTop: 2100 })).toEqual({ index: 96, scrollTop: 2520 });
  });
});

describe("HistoryView event-type filter", () => {
  it("ticks several types, in the list's order, and clears them", () => {
    const changes = renderView({ types: ["ActivityFailed"] });
    const button = screen.getByTestId("history-type");
    expect(button.getAttribute("aria-expanded")).toBe("false");
    expect(button.textContent).toContain("ActivityFailed");
    fireEvent.click(button);
    const panel = screen.getByTestId("history-type-panel");
    expect(button.getAttribute("aria-expanded")).toBe("true");
    expect(button.getAttribute("aria-controls")).toBe(panel.id);
    // Every type is listed with its count; the URL's type is ticked.
    const failed = within(panel).getByRole("checkbox", { name: /ActivityFailed/ }) as HTMLInputElement;
    expect(failed.checked).toBe(true);
    expect(within(panel).getAllByRole("checkbox")).toHaveLength(TYPES.length);
    expect(failed.closest("label")?.textContent).toContain("10");
    fireEvent.click(within(panel).getByRole("checkbox", { name: /ActivityCompleted/ }));
    expect(changes.at(-1)).toEqual({ types: ["ActivityCompleted", "ActivityFailed"] });
    fireEvent.click(failed);
    expect(changes.at(-1)).toEqual({ types: [] });
    fireEvent.click(within(panel).getByRole("button", { name: "Show all" }));
    expect(changes.at(-1)).toEqual({ types: [] });
  });

  it("is usable from the keyboard: focus moves into the group, arrows move between boxes, Escape returns", () => {
    renderView();
    const button = screen.getByTestId("history-type");
    fireEvent.click(button);
    const boxes = within(screen.getByTestId("history-type-panel")).getAllByRole("checkbox");
    expect(document.activeElement).toBe(boxes[0]);
    fireEvent.keyDown(boxes[0]!, { key: "ArrowDown" });
    expect(document.activeElement).toBe(boxes[1]);
    fireEvent.keyDown(boxes[1]!, { key: "End" });
    expect(document.activeElement).toBe(boxes[boxes.length - 1]);
    fireEvent.keyDown(boxes[boxes.length - 1]!, { key: "ArrowUp" });
    expect(document.activeElement).toBe(boxes[boxes.length - 2]);
    fireEvent.keyDown(document.activeElement!, { key: "Escape" });
    expect(screen.queryByTestId("history-type-panel")).toBeNull();
    expect(document.activeElement).toBe(button);
    expect(button.getAttribute("aria-expanded")).toBe("false");
  });

  it("shows several chosen types as removable chips, and keeps a type the history lacks untickable", () => {
    const changes = renderView({ types: ["ActivityFailed", "TimerFired"] });
    expect(screen.getByTestId("history-type").textContent).toContain("2 types");
    fireEvent.click(screen.getByRole("button", { name: "Stop showing TimerFired" }));
    expect(changes.at(-1)).toEqual({ types: ["ActivityFailed"] });
    fireEvent.click(screen.getByTestId("history-type"));
    const timer = within(screen.getByTestId("history-type-panel")).getByRole("checkbox", {
      name: /TimerFired/,
    }) as HTMLInputElement;
    expect(timer.checked).toBe(true);
    // Only the chosen types' events are counted as shown.
    expect(screen.getByTestId("history-count").textContent).toBe("10 of 60 events");
  });

  it("speaks German with the German catalog", () => {
    renderView({ types: ["ActivityFailed", "ActivityCompleted"], locale: "de" });
    expect(de.run.history.type).toBe("Ereignistypen");
    expect(screen.getByText("Ereignistypen")).toBeTruthy();
    expect(screen.getByTestId("history-type").textContent).toContain("2 Typen");
    expect(screen.getByTestId("history-count").textContent).toBe("20 von 60 Ereignissen");
  });
});

describe("HistoryView ←/→ paging", () => {
  it("selects from the first row in view, and leaves keys typed into a field alone", () => {
    const changes = renderView();
    fireEvent.keyDown(window, { key: "ArrowRight" });
    expect(changes.at(-1)).toEqual({ selected: 1 });
    const box = screen.getByTestId("history-failures");
    fireEvent.keyDown(box, { key: "ArrowRight" });
    expect(changes).toHaveLength(2);
    const field = document.createElement("input");
    document.body.append(field);
    fireEvent.keyDown(field, { key: "ArrowRight" });
    fireEvent.keyDown(window, { key: "ArrowRight", ctrlKey: true });
    expect(changes).toHaveLength(2);
    field.remove();
  });

  it("pages from the selection, scrolls the list with it, and not while the type filter is open", () => {
    const changes = renderView({ selected: 5 });
    // jsdom lays nothing out: give the list the height it has in a browser (16 rows of 30 px).
    const list = screen.getByTestId("history-list");
    Object.defineProperty(list, "clientHeight", { configurable: true, value: 480 });
    fireEvent.keyDown(window, { key: "l" });
    expect(changes.at(-1)).toEqual({ selected: 21 });
    expect(list.scrollTop).toBe(480);
    expect(scrollIntoView.mock.contexts.at(-1)).toBe(list);
    // Each press steps from the previous one, even before the new selection comes back as a prop.
    fireEvent.keyDown(window, { key: "ArrowLeft" });
    expect(changes.at(-1)).toEqual({ selected: 5 });
    fireEvent.keyDown(window, { key: "h" });
    expect(changes.at(-1)).toEqual({ selected: 1 });
    fireEvent.click(screen.getByTestId("history-type"));
    fireEvent.keyDown(window, { key: "ArrowRight" });
    expect(changes).toHaveLength(3);
  });
});

describe("rowStep (↑/↓, k/j in the history list)", () => {
  const view = { count: 100, scrollTop: 0, viewHeight: 480, rowHeight: 30 };

  it("moves one row, clamps at both ends, and picks the first row in view without a selection", () => {
    expect(rowStep({ ...view, current: 4, direction: 1 })).toEqual({ index: 5, scrollTop: 0 });
    expect(rowStep({ ...view, current: 0, direction: -1 })).toEqual({ index: 0, scrollTop: 0 });
    expect(rowStep({ ...view, current: 99, direction: 1, scrollTop: 2520 })).toEqual({ index: 99, scrollTop: 2520 });
    expect(rowStep({ ...view, current: -1, direction: 1, scrollTop: 600 })).toEqual({ index: 20, scrollTop: 600 });
    expect(rowStep({ ...view, count: 0, current: -1, direction: 1 })).toBeNull();
  });

  it("scrolls only as far as keeps the selection wholly in view", () => {
    // Row 15 is the last wholly in a 480 px view; row 16 scrolls the list by one row.
    expect(rowStep({ ...view, current: 15, direction: 1 })).toEqual({ index: 16, scrollTop: 30 });
    expect(rowStep({ ...view, current: 20, direction: -1, scrollTop: 600 })).toEqual({ index: 19, scrollTop: 570 });
  });
});

describe("HistoryView rows and detail", () => {
  it("↓ and j step forward one event, ↑ and k back", () => {
    const changes = renderView({ selected: 5 });
    Object.defineProperty(screen.getByTestId("history-list"), "clientHeight", { configurable: true, value: 480 });
    fireEvent.keyDown(window, { key: "ArrowDown" });
    expect(changes.at(-1)).toEqual({ selected: 6 });
    fireEvent.keyDown(window, { key: "j" });
    expect(changes.at(-1)).toEqual({ selected: 7 });
    fireEvent.keyDown(window, { key: "k" });
    fireEvent.keyDown(window, { key: "ArrowUp" });
    expect(changes.at(-1)).toEqual({ selected: 5 });
  });

  function fixtureHistory() {
    const buffer = new HistoryBuffer();
    buffer.add(retried.history_events);
    return { buffer, version: 1, loading: false, tailing: false, error: null };
  }

  it("names each row's subject and tags failures in words", () => {
    const events = fixtureHistory().buffer.events();
    render(
      <NextIntlClientProvider locale="en" messages={en} timeZone="UTC">
        {events.map((event) => (
          <HistoryRow key={event.sequence} event={event} active={false} onSelect={() => {}} />
        ))}
      </NextIntlClientProvider>,
    );
    const rows = screen.getAllByRole("button");
    const retry = rows.find((row) => row.textContent?.includes("ActivityRetryScheduled"))!;
    expect(retry.dataset.failure).toBe("attempt");
    expect(within(retry).getByTestId("history-failure-tag").textContent).toBe("retried");
    expect(within(retry).getByTestId("history-subject").textContent).toBe("ChargeCard");
    const started = rows.find((row) => row.textContent?.includes("WorkflowStarted"))!;
    expect(started.dataset.failure).toBeUndefined();
    expect(within(started).queryByTestId("history-failure-tag")).toBeNull();
  });

  it("names who sent an event's command where the server recorded a person, never the server itself", () => {
    const command = (caller: string) => ({ id: "c1", type: "cancel", caller_label: caller, auth_method: "token" });
    const events = toViewEvents([
      { sequence: 7, event_type: "CancelRequested", payload: { reason: "x", command: command("ola") } },
      { sequence: 8, event_type: "SignalReceived", payload: { signal_name: "go", command: command("ola") } },
      { sequence: 9, event_type: "TerminateRequested", payload: { command: command("Standalone Server") } },
    ]);
    render(
      <NextIntlClientProvider locale="en" messages={en} timeZone="UTC">
        {events.map((event) => (
          <HistoryRow key={event.sequence} event={event} active={false} onSelect={() => {}} />
        ))}
      </NextIntlClientProvider>,
    );
    expect(screen.getAllByTestId("history-subject").map((subject) => subject.textContent)).toEqual([
      "sent by ola",
      "go · sent by ola",
      "",
    ]);
  });

  it("shows the selected payload as fields, with the raw JSON a toggle away", async () => {
    const history = fixtureHistory();
    const scheduled = history.buffer.events().find((event) => event.type === "ActivityScheduled")!;
    renderView({ history, selected: scheduled.sequence });
    const fields = await screen.findByTestId("history-fields");
    const keys = [...fields.querySelectorAll("dt")].map((dt) => dt.textContent);
    expect(keys).toContain("activity_type");
    expect(screen.getByTestId("history-payload").textContent).toMatch(/^#\d+ ActivityScheduled · ChargeCard/);
    fireEvent.click(screen.getByTestId("history-raw-toggle"));
    expect(screen.getByTestId("history-raw").textContent).toContain('"activity_type": "ChargeCard"');
    expect(screen.queryByTestId("history-fields")).toBeNull();
  });
});

describe("HistoryView payload when the console cannot decode it", () => {
  it("still lists the fields, blobs as stored, and says they are not decoded", async () => {
    codec.fail = true;
    const buffer = new HistoryBuffer();
    buffer.add(retried.history_events);
    const scheduled = buffer.events().find((event) => event.type === "ActivityScheduled")!;
    renderView({
      history: { buffer, version: 1, loading: false, tailing: false, error: null },
      selected: scheduled.sequence,
    });
    expect((await screen.findByTestId("history-decode-failed")).textContent).toContain("could not decode");
    expect(screen.getByTestId("history-fields").textContent).toContain("activity_type");
    expect(screen.getByTestId("history-payload").textContent).not.toContain("decoding payload");
  });
});
