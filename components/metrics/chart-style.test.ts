import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  SERIES_COLORS,
  STATUS_BAR_COLORS,
  categoryAxis,
  seriesMax,
  sqrtCountAxis,
} from "@/components/metrics/chart-style";
import type { ChartRow } from "@/components/metrics/metrics-model";

/** The value of a custom property in one block of app/globals.css (`:root` or `.dark`). */
function token(block: ":root" | ".dark", name: string): string {
  const css = readFileSync("app/globals.css", "utf8");
  const body = css.slice(css.indexOf(`${block} {`));
  const match = body.slice(0, body.indexOf("}")).match(new RegExp(`--${name}:\\s*(#[0-9a-f]{6})`, "i"));
  if (!match?.[1]) throw new Error(`--${name} not in ${block}`);
  return match[1];
}

/** Hue in degrees of a #rrggbb colour. */
function hue(hex: string): number {
  const [r, g, b] = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255) as [number, number, number];
  const max = Math.max(r, g, b);
  const d = max - Math.min(r, g, b);
  if (d === 0) return 0;
  const h = max === r ? ((g - b) / d) % 6 : max === g ? (b - r) / d + 2 : (r - g) / d + 4;
  return (h * 60 + 360) % 360;
}

describe("chart colours", () => {
  it("draws the Failed bar and every failing series in the danger token, a red in both themes", () => {
    expect(STATUS_BAR_COLORS.failed).toBe("var(--bad)");
    expect(SERIES_COLORS.failedAttemptsPerMin).toBe("var(--bad)");
    expect(SERIES_COLORS.repairNeeded).toBe("var(--bad)");
    for (const block of [":root", ".dark"] as const) {
      const h = hue(token(block, "bad"));
      expect(Math.min(h, 360 - h), `${block} --bad hue`).toBeLessThan(15);
    }
  });

  it("gives no other status the danger colour, so red means failed", () => {
    const others = Object.entries(STATUS_BAR_COLORS).filter(([status]) => status !== "failed");
    expect(others.map(([, color]) => color)).not.toContain("var(--bad)");
  });
});

describe("sqrtCountAxis", () => {
  it("shows only whole counts, however small the counts are", () => {
    for (const max of [0, 0.4, 1, 2, 3, 7, 13, 99, 101, 4321]) {
      const { ticks, domain } = sqrtCountAxis(max);
      expect(ticks.every(Number.isInteger), `max ${max}: ${ticks.join(",")}`).toBe(true);
      expect(domain[1]).toBeGreaterThanOrEqual(max);
      expect(ticks.at(-1)).toBe(domain[1]);
    }
  });

  it("spreads the ticks along the square-root scale, on 1-2-5 steps", () => {
    expect(sqrtCountAxis(0).ticks).toEqual([0, 1]);
    expect(sqrtCountAxis(2).ticks).toEqual([0, 1, 2]);
    expect(sqrtCountAxis(4).ticks).toEqual([0, 1, 2, 5]);
    expect(sqrtCountAxis(80).ticks).toEqual([0, 5, 20, 50, 100]);
    expect(sqrtCountAxis(1500).ticks).toEqual([0, 100, 500, 1000, 2000]);
  });

  it("takes the top from the drawn series only, skipping gaps", () => {
    const row = (running: number | null, retrying: number | null) =>
      ({ at: 0, running, activitiesRetrying: retrying, failedAttemptsPerMin: 250 }) as unknown as ChartRow;
    expect(seriesMax([row(3, null), row(null, 7), row(null, null)], ["running", "activitiesRetrying"])).toBe(7);
    expect(seriesMax([], ["running"])).toBe(0);
  });
});

describe("categoryAxis", () => {
  const en = ["Running", "Completed", "Failed", "Cancelled", "Terminated"];
  const ja = ["実行中", "完了", "失敗", "キャンセル済み", "強制終了"];

  it("keeps the status names level where each fits above its bar", () => {
    expect(categoryAxis(600, en)).toEqual({ angle: 0, height: 30 });
  });

  it("turns them on a phone's panel, so that none is dropped, and makes room under the plot", () => {
    for (const labels of [en, ja]) {
      const axis = categoryAxis(326, labels);
      expect(axis.angle).toBeLessThan(0);
      expect(axis.height).toBeGreaterThan(30);
    }
  });
});
