"use client";

import { Bar, BarChart, CartesianGrid, Cell, Legend, Line, LineChart, Tooltip, XAxis, YAxis } from "recharts";
import type { ChartKey, ChartRow } from "@/components/metrics/metrics-model";
import { categoryAxis, seriesMax, sqrtCountAxis } from "@/components/metrics/chart-style";
import type { ThemeColor } from "@/components/metrics/chart-style";

/*
 * The Overview's recharts drawings, in their own module: overview-screen loads it with next/dynamic,
 * so recharts is fetched after the page is up instead of in its first-load JS.
 */

export interface ChartSize {
  width: number;
  height: number;
}

const TICK = { fontSize: 11, fill: "var(--fg-muted)" };

export function StatusBarChart({
  data,
  countName,
  size,
}: {
  data: { name: string; count: number; color: ThemeColor }[];
  countName: string;
  size: ChartSize;
}) {
  const names = categoryAxis(
    size.width,
    data.map((entry) => entry.name),
  );
  // A turned axis takes more room under the plot: the chart grows by it, the bars keep their height.
  return (
    <BarChart
      width={size.width}
      height={size.height + names.height - 30}
      data={data}
      className="mt-3"
      accessibilityLayer
    >
      <CartesianGrid strokeDasharray="3 3" stroke="var(--line)" />
      <XAxis
        dataKey="name"
        tick={TICK}
        interval={0}
        angle={names.angle}
        textAnchor={names.angle ? "end" : "middle"}
        height={names.height}
      />
      <YAxis allowDecimals={false} tick={TICK} width={36} />
      <Tooltip />
      {/* Each status in its own colour (Failed in the danger colour), named on the axis below it. */}
      <Bar dataKey="count" name={countName} isAnimationActive={false}>
        {data.map((entry) => (
          <Cell key={entry.name} fill={entry.color} />
        ))}
      </Bar>
    </BarChart>
  );
}

export function SamplesLineChart({
  data,
  lines,
  size,
}: {
  data: (ChartRow & { label: string })[];
  lines: { key: ChartKey; name: string; color: ThemeColor }[];
  size: ChartSize;
}) {
  const axis = sqrtCountAxis(
    seriesMax(
      data,
      lines.map((line) => line.key),
    ),
  );
  return (
    <LineChart width={size.width} height={size.height} data={data} accessibilityLayer>
      <CartesianGrid strokeDasharray="3 3" stroke="var(--line)" />
      <XAxis dataKey="label" tick={{ ...TICK, fontSize: 10 }} minTickGap={40} />
      {/* Square-root scale: a handful of stuck runs stays visible beside hundreds running, and 0 is
          drawable; its ticks are whole counts (chart-style.ts), d3's own would say "0.5". */}
      <YAxis scale="sqrt" domain={axis.domain} ticks={axis.ticks} interval={0} tick={TICK} width={36} />
      <Tooltip />
      <Legend wrapperStyle={{ fontSize: 11 }} />
      {lines.map((line) => (
        <Line
          key={line.key}
          type="linear"
          dataKey={line.key}
          name={line.name}
          stroke={line.color}
          dot={false}
          connectNulls={false}
          strokeWidth={2}
          isAnimationActive={false}
        />
      ))}
    </LineChart>
  );
}
