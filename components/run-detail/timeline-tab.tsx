"use client";

import { useEffect, useMemo, useRef, useState } from "react";
import { useTranslations } from "next-intl";
import { useVirtualizer } from "@tanstack/react-virtual";
import type { LaneSubject, TimelineBar, TimelineChart, TimelineListRow, TimelineMarker } from "@/lib/views/timeline";
import { fittingAttemptLabels, laneSubject, markerKindsOf } from "@/lib/views/timeline";
import { SegmentedControl } from "@/components/ui/segmented-control";
import { useTimeFormat } from "@/components/hooks/use-time-format";
import { Muted } from "@/components/ui/section";
import { VirtualRows } from "@/components/run-detail/virtual-rows";
import { assembledChart } from "@/lib/run-view/stream";
import type { RunTabData, RunTabProps } from "@/components/run-detail/run-tab-registry";

const BAR_COLORS: Readonly<Record<string, string>> = {
  completed: "bg-ok/70",
  fired: "bg-ok/70",
  failed: "bg-bad/80",
  timed_out: "bg-bad/80",
  expired: "bg-warn/80",
  cancelled: "bg-warn/60",
  terminated: "bg-warn/60",
  running: "bg-accent/70",
  pending: "bg-accent/40",
  scheduled: "bg-accent/40",
  started: "bg-accent/70",
  continued: "bg-fg-muted/50",
};

interface Lane {
  id: string;
  label: string;
  bars: TimelineBar[];
  markers: TimelineMarker[];
}

type TimelineT = ReturnType<typeof useTranslations<"run.timeline">>;

/** A lane's label in words: "timer 60 s", "signal timeout 30 s", "child billing.compute-tax". */
function laneLabel(subject: LaneSubject, t: TimelineT): string {
  switch (subject.kind) {
    case "workflow":
    case "activity":
      return subject.name;
    case "child":
      return subject.name ? t("laneChild", { name: subject.name }) : t("laneChild", { name: "" }).trim();
    case "timer": {
      const kind =
        subject.timeout === "signal"
          ? t("laneSignalTimeout")
          : subject.timeout === "condition"
            ? t("laneConditionTimeout")
            : subject.otherKind?.replaceAll("_", " ");
      if (kind) return subject.seconds !== null ? `${kind} ${subject.seconds} s` : kind;
      return subject.seconds !== null ? t("laneTimerDelay", { seconds: subject.seconds }) : t("laneTimer");
    }
  }
}

function lanesOf(chart: TimelineChart, t: TimelineT): Lane[] {
  const lanes = new Map<string, Lane>();
  for (const bar of chart.bars) {
    const lane = lanes.get(bar.lane) ?? { id: bar.lane, label: laneLabel(laneSubject(bar), t), bars: [], markers: [] };
    lane.bars.push(bar);
    lanes.set(bar.lane, lane);
  }
  for (const marker of chart.markers) {
    const label =
      marker.kind === "failure" && marker.update != null ? t("laneUpdate", { name: marker.update }) : marker.lane;
    const lane = lanes.get(marker.lane) ?? { id: marker.lane, label, bars: [], markers: [] };
    lane.markers.push(marker);
    lanes.set(marker.lane, lane);
  }
  return [...lanes.values()];
}

/** Where a time falls on the axis, in percent of its width. */
interface Axis {
  start: number;
  end: number;
  span: number;
  pos: (value: number | null) => number | null;
}

function axisOf(chart: TimelineChart, now: number): Axis {
  const open = chart.bars.some((bar) => bar.end === null);
  const start = chart.start ?? 0;
  // Open bars (no end yet) are drawn up to now.
  const end = (open ? Math.max(now, chart.end ?? now) : chart.end) ?? start;
  const span = Math.max(end - start, 1);
  return { start, end, span, pos: (value) => (value === null ? null : ((value - start) / span) * 100) };
}

/** The event list mode: one virtualized row per history event, failures tinted. */
function TimelineList({ list, count }: { list: readonly TimelineListRow[]; count: number }) {
  const t = useTranslations("run.timeline");
  const tv = useTranslations();
  const time = useTimeFormat();
  if (count === 0) return <Muted>{t("empty")}</Muted>;
  return (
    <VirtualRows
      label={t("list")}
      testId="timeline-list"
      count={count}
      renderRow={(index) => {
        const row = list[index];
        if (!row) return null;
        return (
          <div
            className={`flex h-full items-center gap-3 border-b border-line px-2 text-xs ${row.failure ? "bg-bad/5" : ""}`}
          >
            <span className="w-12 shrink-0 text-right font-mono text-fg-muted">{row.sequence}</span>
            <span className="w-52 shrink-0 truncate font-mono">{row.type}</span>
            <span className="min-w-0 flex-1 truncate" title={tv(row.summary.id, row.summary.values)}>
              {tv(row.summary.id, row.summary.values)}
            </span>
            <span className="hidden w-56 shrink-0 text-fg-muted lg:inline">{time.dateTime(row.recordedAt)}</span>
            <span className="hidden w-40 shrink-0 truncate text-fg-muted xl:inline">{row.sourceKind}</span>
          </div>
        );
      }}
    />
  );
}

/** The axis labels: the start time, then +offsets at quarters of the span. */
function AxisLabels({ axis, known }: { axis: Axis; known: boolean }) {
  const time = useTimeFormat();
  return (
    <div className="mb-1 flex text-[10px] text-fg-muted">
      <div className="w-48 shrink-0" />
      <div className="relative h-4 flex-1">
        {[0, 0.25, 0.5, 0.75, 1].map((fraction) => (
          <span
            key={fraction}
            className="absolute whitespace-nowrap"
            style={{
              left: `${fraction * 100}%`,
              transform: fraction === 1 ? "translateX(-100%)" : fraction === 0 ? undefined : "translateX(-50%)",
            }}
          >
            {!known ? "" : fraction === 0 ? time.dateTime(axis.start) : `+${time.duration(axis.span * fraction)}`}
          </span>
        ))}
      </div>
    </div>
  );
}

function LaneBar({
  bar,
  lane,
  axis,
  labelOffset,
}: {
  bar: TimelineBar;
  lane: Lane;
  axis: Axis;
  /** Where the "#n" label goes, in px from the bar's start; null draws none. */
  labelOffset: number | null;
}) {
  const time = useTimeFormat();
  const left = axis.pos(bar.start) ?? 0;
  const right = axis.pos(bar.end ?? axis.end) ?? left;
  const attempt = bar.kind === "activity" ? bar.attempt : null;
  const title = [
    lane.label,
    attempt !== null ? `#${attempt}` : null,
    bar.status,
    bar.start !== null ? time.dateTime(bar.start) : null,
    bar.end !== null && bar.start !== null ? time.duration(bar.end - bar.start) : null,
  ]
    .filter(Boolean)
    .join(" · ");
  return (
    <div
      title={title}
      data-testid="timeline-bar"
      className={`absolute top-1 h-4 rounded-sm text-[9px] leading-4 whitespace-nowrap text-white ${BAR_COLORS[bar.status] ?? "bg-fg-muted/50"}`}
      style={{ left: `${left}%`, width: `max(${Math.max(right - left, 0)}%, 3px)` }}
    >
      {/* Only where it has room (it may run past a narrow bar); the number is in the title either way. */}
      {attempt !== null && labelOffset !== null ? (
        <span
          className="absolute top-0 rounded-sm bg-fg px-0.5 text-canvas"
          style={{ left: labelOffset }}
          data-testid="timeline-attempt-label"
        >
          #{attempt}
        </span>
      ) : null}
    </div>
  );
}

/** A failure dot, or a retry diamond with the dashed backoff up to the next attempt. */
function LaneMarker({ marker, axis }: { marker: TimelineMarker; axis: Axis }) {
  const t = useTranslations("run.timeline");
  const at = axis.pos(marker.at) ?? 0;
  if (marker.kind === "retry") {
    const until = axis.pos(marker.availableAt) ?? at;
    const title = t("retryMarker", {
      attempt: (marker.afterAttempt ?? 0) + 1,
      seconds: marker.backoffSeconds ?? 0,
      message: marker.failure.message ?? "",
    });
    return (
      <div title={title} data-testid="timeline-retry">
        <div
          className="absolute top-3 border-t-2 border-dashed border-warn"
          style={{ left: `${at}%`, width: `${Math.max(until - at, 0)}%` }}
        />
        <div
          className="absolute top-1.5 h-3 w-3 -translate-x-1/2 rotate-45 border border-warn bg-warn/70"
          style={{ left: `${at}%` }}
        />
      </div>
    );
  }
  if (marker.kind === "cancellation") {
    const scope = marker.scope ? t("cancelMarkerScope", { scope: marker.scope }) : "";
    return (
      <div
        title={`${marker.eventType}${scope}${marker.reason ? `: ${marker.reason}` : ""}`}
        data-testid="timeline-cancellation"
        data-event-type={marker.eventType}
        className="absolute top-1 h-4 w-1.5 -translate-x-1/2 rounded-sm border border-panel bg-fg-muted"
        style={{ left: `${at}%` }}
      />
    );
  }
  const failure = marker.failure;
  return (
    <div
      title={`${failure.exceptionType ?? failure.exceptionClass ?? failure.eventType}: ${failure.message ?? ""}`}
      data-testid="timeline-failure"
      className="absolute top-1 h-4 w-4 -translate-x-1/2 rounded-full border-2 border-panel bg-bad"
      style={{ left: `${at}%` }}
    />
  );
}

function TimelineLane({ lane, axis, widthPx }: { lane: Lane; axis: Axis; widthPx: number }) {
  const labelled = useMemo(
    () =>
      fittingAttemptLabels(
        lane.bars,
        axis,
        widthPx,
        lane.markers.map((marker) => marker.at),
      ),
    [lane.bars, lane.markers, axis, widthPx],
  );
  return (
    <div className="flex items-center border-t border-line" data-testid="timeline-lane">
      <div className="w-48 shrink-0 truncate py-1 pr-2 text-xs" title={lane.label}>
        {lane.label}
      </div>
      <div className="relative h-6 flex-1 bg-panel-muted/40">
        {lane.bars.map((bar, index) => (
          <LaneBar
            key={`${bar.kind}-${bar.kind === "activity" ? bar.attemptId : bar.lane}`}
            bar={bar}
            lane={lane}
            axis={axis}
            labelOffset={labelled.get(index) ?? null}
          />
        ))}
        {lane.markers.map((marker) => (
          <LaneMarker key={`${marker.kind}${marker.sequence}`} marker={marker} axis={axis} />
        ))}
      </div>
    </div>
  );
}

/** The chart mode: one lane per workflow, activity, timer or child, on a shared time axis. */
/** The chart's minimum width less the lane-label column: the lane width before it is measured. */
const MIN_LANE_PX = 720 - 192;

/** The lanes' drawn width, so attempt labels are placed in pixels (kept up to date on resize). */
function useLaneWidth() {
  const ref = useRef<HTMLDivElement>(null);
  const [width, setWidth] = useState(MIN_LANE_PX);
  useEffect(() => {
    const element = ref.current;
    if (!element || typeof ResizeObserver === "undefined") return;
    const measure = () => setWidth(Math.max(element.clientWidth - 192, MIN_LANE_PX));
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(element);
    return () => observer.disconnect();
  }, []);
  return { ref, width };
}

/** Lanes drawn without a scroll box up to this many; beyond, only the lanes in view are in the DOM. */
const VIRTUAL_LANES_FROM = 40;
/** A lane's height: `h-6` plus its top border. */
const LANE_PX = 25;
const LANES_VIEW_PX = 600;

/**
 * Every lane, reachable: a run of 12,000 activities has 12,000 lanes, and drawing even 200 of them
 * (bars, markers, titles) held the page in one long task when the chart arrived, so a long chart scrolls in
 * a box that mounts only the lanes in view.
 */
function LaneRows({ lanes, axis, widthPx }: { lanes: readonly Lane[]; axis: Axis; widthPx: number }) {
  const t = useTranslations("run.timeline");
  const scrollRef = useRef<HTMLDivElement>(null);
  const many = lanes.length > VIRTUAL_LANES_FROM;
  // The virtualizer re-renders this component on scroll itself; compiler memoisation is not needed here.
  // eslint-disable-next-line react-hooks/incompatible-library
  const virtualizer = useVirtualizer({
    count: many ? lanes.length : 0,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => LANE_PX,
    overscan: 8,
    initialRect: { width: 800, height: LANES_VIEW_PX },
  });
  if (!many) return lanes.map((lane) => <TimelineLane key={lane.id} lane={lane} axis={axis} widthPx={widthPx} />);
  return (
    <>
      <p className="mb-1 text-[11px] text-fg-muted" data-testid="timeline-lanes-note">
        {t("lanes", { count: lanes.length })}
      </p>
      <div
        ref={scrollRef}
        className="overflow-y-auto"
        style={{ height: LANES_VIEW_PX }}
        data-testid="timeline-lanes"
        role="group"
        aria-label={t("lanes", { count: lanes.length })}
      >
        <div style={{ height: virtualizer.getTotalSize(), position: "relative" }}>
          {virtualizer.getVirtualItems().map((item) => {
            const lane = lanes[item.index];
            return lane ? (
              <div
                key={lane.id}
                className="absolute inset-x-0 top-0"
                style={{ height: LANE_PX, transform: `translateY(${item.start}px)` }}
              >
                <TimelineLane lane={lane} axis={axis} widthPx={widthPx} />
              </div>
            ) : null;
          })}
        </div>
      </div>
    </>
  );
}

function TimelineChartView({ chart, now }: { chart: TimelineChart; now: number }) {
  const t = useTranslations("run.timeline");
  const lanes = useMemo(() => lanesOf(chart, t), [chart, t]);
  const markerKinds = useMemo(() => markerKindsOf(chart.markers), [chart.markers]);
  const axis = useMemo(() => axisOf(chart, now), [chart, now]);
  const { ref, width } = useLaneWidth();
  if (lanes.length === 0) return <Muted>{t("empty")}</Muted>;
  return (
    <div className="overflow-x-auto" data-testid="timeline-chart" role="region" aria-label={t("chart")} tabIndex={0}>
      <div className="min-w-[720px]" ref={ref}>
        <AxisLabels axis={axis} known={chart.start !== null} />
        <LaneRows lanes={lanes} axis={axis} widthPx={width} />
        {markerKinds.length > 0 ? (
          <div className="mt-2 flex flex-wrap gap-4 text-[11px] text-fg-muted" data-testid="timeline-legend">
            {/* Each swatch is drawn as its mark on the lanes is (LaneMarker). */}
            {markerKinds.includes("failure") ? (
              <span className="inline-flex items-center gap-1" data-legend="failure">
                <span data-swatch="" className="inline-block h-3 w-3 rounded-full bg-bad" /> {t("legendFailure")}
              </span>
            ) : null}
            {markerKinds.includes("retry") ? (
              <>
                <span className="inline-flex items-center gap-1.5" data-legend="retry">
                  <span data-swatch="" className="inline-block h-2.5 w-2.5 rotate-45 border border-warn bg-warn/70" />{" "}
                  {t("legendRetry")}
                </span>
                <span className="inline-flex items-center gap-1" data-legend="backoff">
                  <span data-swatch="" className="inline-block w-6 border-t-2 border-dashed border-warn" />{" "}
                  {t("legendBackoff")}
                </span>
              </>
            ) : null}
            {markerKinds.includes("cancellation") ? (
              <span className="inline-flex items-center gap-1" data-legend="cancellation">
                <span data-swatch="" className="inline-block h-3 w-1.5 rounded-sm bg-fg-muted" />{" "}
                {t("legendCancellation")}
              </span>
            ) : null}
          </div>
        ) : null}
      </div>
    </div>
  );
}

/** The run's timeline as a chart of lanes or as the event list (the mode is URL state). */
function TimelineModes({ mode, onMode }: { mode: "chart" | "list"; onMode: (mode: "chart" | "list") => void }) {
  const t = useTranslations("run.timeline");
  return (
    <SegmentedControl
      label={t("mode")}
      value={mode}
      onChange={onMode}
      options={[
        { value: "chart", label: t("chart") },
        { value: "list", label: t("list") },
      ]}
    />
  );
}

export function TimelineView({
  chart,
  now,
  list,
  listLength,
  mode,
  onMode,
}: {
  chart: TimelineChart;
  /** Epoch ms: open bars (no end yet) are drawn up to now. */
  now: number;
  list: readonly TimelineListRow[];
  /** The list's length when it grows in place (a new length re-renders the virtual rows). */
  listLength?: number;
  mode: "chart" | "list";
  onMode: (mode: "chart" | "list") => void;
}) {
  return (
    <div className="space-y-3">
      <TimelineModes mode={mode} onMode={onMode} />
      {mode === "list" ? (
        <TimelineList list={list} count={listLength ?? list.length} />
      ) : (
        <TimelineChartView chart={chart} now={now} />
      )}
    </div>
  );
}

/**
 * The Timeline tab over the streamed views. The event list fills as pages are read (virtual rows:
 * a few dozen in the DOM); the time axis needs the run's bounds and open bars from the snapshot, so
 * it is drawn once the history is read (its bars are joined once per snapshot, not per chunk).
 */
export function TimelineTab({
  data,
  store,
  now,
  settings,
  onSettings,
}: RunTabProps & Pick<RunTabData, "data" | "store" | "now">) {
  const mode = settings.timelineMode;
  const onMode = (next: "chart" | "list") => onSettings({ timelineMode: next });
  // The list mode is shown: the event list, kept unparsed until then, is wanted (RunViewStore.wantList).
  const onWantList = store.wantList;
  const t = useTranslations("run.timeline");
  const { snapshot, bars, markers } = data;
  useEffect(() => {
    if (mode === "list") onWantList();
  }, [mode, onWantList]);
  // Bars and markers only grow together with a new snapshot: the chart is joined once per snapshot.
  const chart = useMemo(() => assembledChart({ snapshot, bars, markers }), [snapshot, bars, markers]);
  if (mode === "chart" && !chart)
    return (
      <div className="space-y-3">
        <TimelineModes mode={mode} onMode={onMode} />
        <Muted>{t("chartPending")}</Muted>
      </div>
    );
  if (mode === "list" && data.listPending && data.list.length === 0)
    return (
      <div className="space-y-3">
        <TimelineModes mode={mode} onMode={onMode} />
        <Muted>{t("listPending")}</Muted>
      </div>
    );
  return (
    <TimelineView
      chart={chart ?? EMPTY_CHART}
      now={now}
      list={data.list}
      listLength={data.list.length}
      mode={mode}
      onMode={onMode}
    />
  );
}

const EMPTY_CHART: TimelineChart = { start: null, end: null, bars: [], markers: [] };
