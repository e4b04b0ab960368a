import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";

/**
 * A bench's figures saved as JSON (bench/baselines/*.json) and compared with a later run as
 * `figure | before (<commit>) | now | ratio | budget | ok?`. A value is a number in the figure's
 * unit, or the reason it could not be measured.
 */

export type Value = number | { notMeasurable: string };

export interface FigureDef {
  key: string;
  label: string;
  unit: "ms" | "KB" | "MB" | "s" | "rows";
  /** The figure must stay below (or, with `atMost`, at or below) this; null: no budget, shown for context. */
  budget: number | null;
  atMost?: boolean;
}

export interface Baseline {
  bench: string;
  commit: string;
  measuredAt: string;
  machine: string;
  notes: string[];
  /** Run size (events) → figure key → value. */
  sizes: Record<string, Record<string, Value>>;
}

export function readBaseline(file: string): Baseline | null {
  if (!existsSync(file)) return null;
  return JSON.parse(readFileSync(file, "utf8")) as Baseline;
}

export function writeBaseline(file: string, b: Baseline): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(b, null, 2)}\n`);
}

export function show(v: Value | undefined, unit: string): string {
  if (v === undefined) return "-";
  if (typeof v !== "number") return `not measurable: ${v.notMeasurable}`;
  const digits = Math.abs(v) >= 100 ? 0 : Math.abs(v) >= 10 ? 1 : 2;
  return `${v.toFixed(digits)} ${unit}`;
}

export function budgetText(d: FigureDef): string {
  return d.budget === null ? "-" : `${d.atMost ? "≤" : "<"} ${d.budget} ${d.unit}`;
}

export function withinBudget(d: FigureDef, v: Value | undefined): boolean | null {
  if (d.budget === null || typeof v !== "number") return null;
  return d.atMost ? v <= d.budget : v < d.budget;
}

function ratio(before: Value | undefined, now: Value | undefined): string {
  if (typeof before !== "number" || typeof now !== "number") return "-";
  if (before === 0) return now === 0 ? "1×" : "-";
  const r = now / before;
  return r >= 10 ? `${r.toFixed(0)}×` : `${r.toFixed(2)}×`;
}

function table(rows: string[][]): string {
  const widths = (rows[0] ?? []).map((_, i) => Math.max(...rows.map((r) => (r[i] ?? "").length)));
  return rows.map((r) => r.map((c, i) => c.padEnd(widths[i] ?? 0)).join(" | ")).join("\n");
}

/** The comparison table; `budgeted(size)` says whether the budgets apply to runs of that size. */
export function comparison(
  defs: readonly FigureDef[],
  now: Baseline,
  before: Baseline | null,
  budgeted: (size: number) => boolean,
): string {
  const head = ["figure", `before (${before?.commit ?? "none"})`, `now (${now.commit})`, "ratio", "budget", "ok?"];
  const rows: string[][] = [head];
  for (const size of Object.keys(now.sizes)) {
    for (const d of defs) {
      const v = now.sizes[size]?.[d.key];
      const b = before?.sizes[size]?.[d.key];
      if (v === undefined && b === undefined) continue;
      const applies = budgeted(Number(size));
      const ok = applies ? withinBudget(d, v) : null;
      rows.push([
        `${Number(size).toLocaleString("en-US")} events: ${d.label}`,
        show(b, d.unit),
        show(v, d.unit),
        ratio(b, v),
        applies ? budgetText(d) : "-",
        ok === null ? "-" : ok ? "ok" : "OVER",
      ]);
    }
  }
  return table(rows);
}
