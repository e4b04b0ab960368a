"use client";

import { Bar, BarChart, CartesianGrid, Legend, Line, LineChart, Tooltip, XAxis, YAxis } from "recharts";
import type { ChartKey, ChartRow } from "@/components/metrics/metrics-model";

/*
 * The Overview's recharts drawings, in their own module: overview-screen loads it with next/dynamic,
 * so recharts (≈ 128 KB gzip) is fetched after the page is up instead of in its first-load JS.
 */

export interface ChartSize {
  width: number;
  height: number;
}

export function StatusBarChart({
  data,
  countName,
  size,
}: {
  data: { name: string; count: number }[];
  countName: string;
  size: ChartSize;
}) {
  return (
    <BarChart width={size.width} height={size.height} data={data} className="mt-3" accessibilityLayer>
      <CartesianGrid strokeDasharray="3 3" stroke="var(--line)" />
      <XAxis dataKey="name" tick={{ fontSize: 11, fill: "var(--fg-muted)" }} />
      <YAxis allowDecimals={false} tick={{ fontSize: 11, fill: "var(--fg-muted)" }} width={36} />
      <Tooltip />
      <Bar dataKey="count" name={countName} fill="var(--accent)" isAnimationActive={false} />
    </BarChart>
  );
}

export function SamplesLineChart({
  data,
  lines,
  size,
}: {
  data: (ChartRow & { label: string })[];
  lines: { key: ChartKey; name: string; color: string }[];
  size: ChartSize;
}) {
  return (
    <LineChart width={size.width} height={size.height} data={data} accessibilityLayer>
      <CartesianGrid strokeDasharray="3 3" stroke="var(--line)" />
      <XAxis dataKey="label" tick={{ fontSize: 10, fill: "var(--fg-muted)" }} minTickGap={40} />
      {/* Square-root scale: a handful of stuck runs stays visible beside hundreds running, and 0 is drawable. */}
      <YAxis
        scale="sqrt"
        domain={[0, "auto"]}
        allowDecimals={false}
        tick={{ fontSize: 11, fill: "var(--fg-muted)" }}
        width={36}
      />
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
