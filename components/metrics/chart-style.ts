import type { ChartKey, ChartRow } from "@/components/metrics/metrics-model";

/**
 * The Overview charts' colours and count axes, pure so they are tested without drawing. Colours are
 * the console's theme tokens (app/globals.css), so each follows the light and dark themes by itself.
 */

/** A theme token as an SVG paint: `var(--bad)` is the console's danger colour in both themes. */
export type ThemeColor = "var(--accent)" | "var(--ok)" | "var(--warn)" | "var(--bad)" | "var(--fg-muted)";

export type RunStatusBar = "running" | "completed" | "failed" | "cancelled" | "terminated";

/** One colour per run status, as the status badges read: failed in the danger colour, completed in ok. */
export const STATUS_BAR_COLORS: Readonly<Record<RunStatusBar, ThemeColor>> = {
  running: "var(--accent)",
  completed: "var(--ok)",
  failed: "var(--bad)",
  cancelled: "var(--fg-muted)",
  terminated: "var(--warn)",
};

/** Each sampled series' colour: what is failing or stuck in the danger colour, what waits in warn. */
export const SERIES_COLORS: Readonly<Record<ChartKey, ThemeColor>> = {
  running: "var(--accent)",
  repairNeeded: "var(--bad)",
  tasksReady: "var(--accent)",
  tasksLeased: "var(--ok)",
  tasksUnhealthy: "var(--warn)",
  activitiesRetrying: "var(--warn)",
  failedAttempts: "var(--bad)",
  failedAttemptsPerMin: "var(--bad)",
};

/** The nice numbers (1, 2, 5 × 10ⁿ) at or above 1: a count axis never shows a fraction. */
function niceCeil(value: number): number {
  if (value <= 1) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 2, 5, 10]) if (step * power >= value) return step * power;
  return 10 * power;
}

/** The nice integer nearest to `value` on a log scale (5.6 → 5, 25 → 20), or null below 0.75. */
function niceNearest(value: number): number | null {
  if (value < 0.75) return null;
  const power = 10 ** Math.floor(Math.log10(value));
  const candidates = [1, 2, 5, 10].map((step) => step * power).filter((candidate) => candidate >= 1);
  return candidates.reduce((best, candidate) =>
    Math.abs(Math.log(candidate / value)) < Math.abs(Math.log(best / value)) ? candidate : best,
  );
}

export interface CountAxis {
  domain: [0, number];
  ticks: number[];
}

/**
 * A square-root count axis: 0 to a nice top at or above `max`, ticks that are whole counts spread
 * evenly in square-root space (d3's own sqrt ticks are fractional for small counts: "0.5 runs").
 */
export function sqrtCountAxis(max: number): CountAxis {
  const top = niceCeil(Number.isFinite(max) ? max : 0);
  const inner = [1 / 16, 1 / 4, 9 / 16].map((share) => niceNearest(top * share));
  const ticks = [...new Set([0, ...inner.filter((tick): tick is number => tick !== null && tick < top), top])];
  return { domain: [0, top], ticks: ticks.sort((a, b) => a - b) };
}

/** The highest value the given series reach in the rows (gaps skipped), 0 when none. */
export function seriesMax(rows: readonly ChartRow[], keys: readonly ChartKey[]): number {
  let max = 0;
  for (const row of rows) {
    for (const key of keys) {
      const value = row[key];
      if (typeof value === "number" && value > max) max = value;
    }
  }
  return max;
}

/** Rough width of a label at the axes' 11 px: CJK characters are square, Latin ones about 0.56 em. */
function labelWidth(label: string): number {
  let width = 0;
  for (const char of label) width += /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u.test(char) ? 11 : 6.2;
  return width;
}

export interface CategoryAxis {
  /** Degrees the names are turned (0: level). */
  angle: number;
  /** Height the axis takes under the plot, names included. */
  height: number;
}

/**
 * The status names under the bars: level when each fits above its bar, else turned so that every
 * one still shows (recharts would otherwise drop every other name on a phone, "Cancelled" among them).
 */
export function categoryAxis(chartWidth: number, labels: readonly string[], yAxisWidth = 36): CategoryAxis {
  const slot = (chartWidth - yAxisWidth - 10) / Math.max(1, labels.length);
  const longest = Math.max(0, ...labels.map(labelWidth));
  if (longest <= slot - 6) return { angle: 0, height: 30 };
  return { angle: -35, height: Math.ceil(longest * Math.sin((35 * Math.PI) / 180)) + 16 };
}
