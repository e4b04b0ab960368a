// @vitest-environment jsdom
import { afterEach, describe, expect, it } from "vitest";
import { cleanup, render, screen, within } from "@testing-library/react";
import { NextIntlClientProvider } from "next-intl";
import en from "@/messages/en.json";
import type { RunTabData, RunTabProps } from "@/components/run-detail/run-tab-registry";
import { RUN_TABS, isRunTab, panelProps, runTab } from "@/components/run-detail/run-tab-registry";
import { RunTabs, tabKeyTarget } from "@/components/run-detail/run-tabs";
import { parseRunUrlState, runUrlQuery } from "@/components/run-detail/run-detail-url-state";

afterEach(cleanup);

const settings = { timelineMode: "chart", historyTypes: [], failuresOnly: false, selectedEvent: null } as const;
const props: RunTabProps = {
  namespace: "default",
  workflowId: "order-42",
  runId: "r-1",
  open: true,
  settings: { ...settings, historyTypes: [] },
  onSettings: () => undefined,
};
// Distinct stand-ins: the test checks which of them reach a panel, not what a panel does with them.
const data = {
  data: { marker: "data" },
  summary: { marker: "summary" },
  store: { marker: "store" },
  pending: [],
  runs: [],
  now: 1_700_000_000_000,
} as unknown as RunTabData;

describe("run tab registry", () => {
  it("gives each panel the props every panel takes and only the data its entry names", () => {
    for (const entry of RUN_TABS) {
      const given: Record<string, unknown> = panelProps(entry, props, data);
      expect(Object.keys(given).sort(), entry.id).toEqual([...Object.keys(props), ...entry.needs].sort());
      for (const need of entry.needs) expect(given[need], `${entry.id}.${need}`).toBe(data[need]);
      expect(given.settings).toBe(props.settings);
    }
  });

  it("names each tab once, with its words in the catalog", () => {
    const ids = RUN_TABS.map((entry) => entry.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(Object.keys(en.run.tabs).sort()).toEqual([...ids].sort());
  });

  it("opens every registered tab from the URL's view= and anything else as the timeline", () => {
    for (const { id } of RUN_TABS) {
      expect(isRunTab(id)).toBe(true);
      const state = parseRunUrlState(new URLSearchParams(`view=${id}`));
      expect(state.tab).toBe(id);
      expect(runUrlQuery(state)).toBe(id === "timeline" ? "" : `?view=${id}`);
    }
    expect(isRunTab("nope")).toBe(false);
    expect(parseRunUrlState(new URLSearchParams("view=nope")).tab).toBe("timeline");
    expect(runTab("waits").id).toBe("waits");
  });

  it("lists the tabs in registry order, and ←/→/Home/End move along it with wrap-around", () => {
    render(
      <NextIntlClientProvider locale="en" messages={en} timeZone="UTC">
        <RunTabs selected="history" onSelect={() => undefined} />
      </NextIntlClientProvider>,
    );
    const tabs = within(screen.getByRole("tablist", { name: "Run views" })).getAllByRole("tab");
    expect(tabs.map((tab) => tab.textContent)).toEqual(RUN_TABS.map(({ id }) => en.run.tabs[id]));
    expect(tabs.map((tab) => tab.getAttribute("aria-selected"))).toEqual(
      RUN_TABS.map(({ id }) => String(id === "history")),
    );

    const ids = RUN_TABS.map((entry) => entry.id);
    const first = ids[0]!;
    const last = ids.at(-1)!;
    ids.forEach((id, at) => {
      expect(tabKeyTarget("ArrowRight", id)).toBe(ids[at + 1] ?? first);
      expect(tabKeyTarget("ArrowLeft", id)).toBe(ids[at - 1] ?? last);
      expect(tabKeyTarget("Home", id)).toBe(first);
      expect(tabKeyTarget("End", id)).toBe(last);
      expect(tabKeyTarget("Enter", id)).toBeNull();
    });
  });
});
