import "server-only";
import { SAMPLE_FIELDS } from "@/lib/views/metrics-samples";
import type { MetricsPoint, MetricsSample } from "@/lib/views/metrics-samples";

/** One row: the time, then each of SAMPLE_FIELDS; a gap is a row whose first count is NaN. */
const ROW = 1 + SAMPLE_FIELDS.length;

/**
 * A fixed ring of chart points in one Float64Array: 8 numbers of 8 bytes a point, so 24 h at 15 s
 * (5,760 points) is 368,640 bytes per namespace, allocated once and never grown. Points go in time
 * order; one not after the newest is dropped (the server answered the same snapshot twice).
 */
export class MetricsRing {
  private readonly rows: Float64Array;
  private start = 0;
  private count = 0;

  constructor(readonly capacity: number) {
    this.rows = new Float64Array(capacity * ROW);
  }

  get size(): number {
    return this.count;
  }

  get bytes(): number {
    return this.rows.byteLength;
  }

  get newestAt(): number | null {
    return this.count === 0 ? null : this.atOf(this.count - 1);
  }

  get oldestAt(): number | null {
    return this.count === 0 ? null : this.atOf(0);
  }

  /** Adds a point after the newest; false (and nothing kept) when it is not after it. */
  push(point: MetricsPoint): boolean {
    const newest = this.newestAt;
    if (!Number.isFinite(point.at) || (newest !== null && point.at <= newest)) return false;
    const slot = (this.start + this.count) % this.capacity;
    if (this.count === this.capacity) this.start = (this.start + 1) % this.capacity;
    else this.count += 1;
    const base = slot * ROW;
    this.rows[base] = point.at;
    SAMPLE_FIELDS.forEach((field, index) => {
      this.rows[base + 1 + index] = "gap" in point ? Number.NaN : point[field];
    });
    return true;
  }

  /** The points after `since` (all of them for null), oldest first. */
  after(since: number | null): MetricsPoint[] {
    const points: MetricsPoint[] = [];
    for (let index = this.firstAfter(since); index < this.count; index += 1) points.push(this.pointAt(index));
    return points;
  }

  private atOf(index: number): number {
    return this.rows[((this.start + index) % this.capacity) * ROW] ?? Number.NaN;
  }

  /** Binary search: points are in time order, so a `since` read costs log n, not a scan. */
  private firstAfter(since: number | null): number {
    if (since === null) return 0;
    let low = 0;
    let high = this.count;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.atOf(middle) <= since) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  private pointAt(index: number): MetricsPoint {
    const base = ((this.start + index) % this.capacity) * ROW;
    const at = this.rows[base] ?? Number.NaN;
    if (Number.isNaN(this.rows[base + 1])) return { at, gap: true };
    const sample = { at } as MetricsSample;
    SAMPLE_FIELDS.forEach((field, index) => {
      sample[field] = this.rows[base + 1 + index] ?? 0;
    });
    return sample;
  }
}
