// @vitest-environment jsdom
import { afterEach, describe, expect, it, vi } from "vitest";
import { cleanup, render, screen } from "@testing-library/react";
import { NextIntlClientProvider } from "next-intl";
import en from "@/messages/en.json";
import type { TimelineChart } from "@/lib/views/timeline";
import { timelineRows } from "@/lib/views/timeline";
import activityTimeout from "@/lib/views/fixtures/activity-timeout.json";
import { TimelineView } from "@/components/run-detail/timeline-tab";

afterEach(cleanup);

function renderChart(chart: TimelineChart, lanes = true) {
  render(
    <NextIntlClientProvider locale="en" messages={en} timeZone="UTC">
      <TimelineView chart={chart} now={chart.end ?? 0} list={[]} mode="chart" onMode={() => {}} />
    </NextIntlClientProvider>,
  );
  if (!lanes) return [];
  return screen.getAllByTestId("timeline-lane").map((lane) => lane.firstElementChild?.textContent);
}

const chart = () => timelineRows(activityTimeout.history_events, { activities: activityTimeout.activities });

describe("timeline chart", () => {
  it("labels a timer lane by its delay, not 'timer timer'", () => {
    const labels = renderChart(chart());
    expect(labels).toContain("timer 60 s");
    expect(labels).toContain("child billing.compute-tax");
    expect(labels.some((label) => label?.includes("timer timer"))).toBe(false);
  });

  it("lists in the legend only the marker kinds the run has", () => {
    renderChart(chart());
    const legend = screen.getByTestId("timeline-legend");
    expect([...legend.querySelectorAll("[data-legend]")].map((item) => item.getAttribute("data-legend"))).toEqual([
      "failure",
      "retry",
      "backoff",
    ]);
    // Each swatch is drawn like its mark on the chart: the bordered diamond, the dashed backoff line.
    const swatch = (kind: string) => legend.querySelector(`[data-legend="${kind}"] [data-swatch]`)?.className ?? "";
    expect(swatch("retry")).toContain("rotate-45");
    expect(swatch("retry")).toContain("border-warn");
    expect(swatch("backoff")).toContain("border-dashed");
    expect(legend.querySelector('[data-legend="backoff"]')?.textContent).toContain("backoff");
    cleanup();
    const withoutRetries = chart();
    renderChart({ ...withoutRetries, markers: withoutRetries.markers.filter((marker) => marker.kind !== "retry") });
    expect(screen.getByTestId("timeline-legend").querySelector('[data-legend="retry"]')).toBeNull();
    expect(screen.getByTestId("timeline-legend").querySelector('[data-legend="backoff"]')).toBeNull();
    cleanup();
    renderChart({ ...withoutRetries, markers: [] });
    expect(screen.queryByTestId("timeline-legend")).toBeNull();
  });

  it("draws attempt labels only where they do not run into the next bar", () => {
    const full = chart();
    // Two 30 s attempts on the run's ~2 min axis, drawn 528 px wide: both labels fit, apart.
    renderChart(full);
    const labels = screen.queryAllByTestId("timeline-attempt-label").map((label) => label.textContent);
    expect(labels).toEqual(["#1", "#2"]);
    cleanup();
    // Stretch the axis to a day: the attempts are a fraction of a pixel apart, so only the last has room
    // for its label (the title keeps every number).
    renderChart({ ...full, end: (full.start ?? 0) + 86_400_000 });
    expect(screen.queryAllByTestId("timeline-attempt-label").map((label) => label.textContent)).toEqual(["#2"]);
    expect(screen.getAllByTestId("timeline-bar").some((bar) => bar.getAttribute("title")?.includes("#2"))).toBe(true);
  });

  it("mounts only the lanes in view of a chart with thousands of lanes, and says how many there are", async () => {
    const one = chart();
    const bar = one.bars.find((b) => b.kind === "activity")!;
    // 3,000 activity lanes, one attempt each.
    const bars = Array.from({ length: 3_000 }, (_, i) => ({ ...bar, lane: `activity:${i}`, attemptId: `a${i}` }));
    // jsdom lays nothing out: give the scroll box the size a browser would.
    const height = vi.spyOn(HTMLElement.prototype, "clientHeight", "get").mockReturnValue(600);
    renderChart({ ...one, bars, markers: [] }, false);
    const labels = await screen.findAllByTestId("timeline-lane");
    expect(labels.length).toBeGreaterThan(10);
    expect(labels.length).toBeLessThan(60);
    expect(screen.getByTestId("timeline-lanes-note").textContent).toBe("All 3,000 lanes; scroll to see them");
    height.mockRestore();
    cleanup();
    // A small chart is drawn whole, without the scroll box.
    expect(renderChart(one).length).toBeGreaterThan(1);
    expect(screen.queryByTestId("timeline-lanes")).toBeNull();
  });
});
