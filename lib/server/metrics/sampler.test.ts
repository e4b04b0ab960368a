import { describe, expect, it } from "vitest";
import { DwForbiddenError, DwServerUnavailableError } from "@/lib/dw/errors";
import type { OperatorMetrics } from "@/lib/dw/schemas-system";
import { MetricsRing } from "@/lib/server/metrics/ring";
import { MetricsSampler } from "@/lib/server/metrics/sampler";
import type { SamplerCredential } from "@/lib/server/metrics/sampler";
import type { MetricsSample } from "@/lib/views/metrics-samples";

function sample(at: number, running = 1): MetricsSample {
  return {
    at,
    running,
    repairNeeded: 0,
    tasksReady: 0,
    tasksLeased: 0,
    tasksUnhealthy: 0,
    activitiesRetrying: 0,
    failedAttempts: 0,
  };
}

function metricsAt(at: number, running: number): OperatorMetrics {
  return {
    generated_at: new Date(at).toISOString(),
    runs: { running, repair_needed: 0 },
    tasks: { ready: 0, leased: 0, unhealthy: 0 },
    activities: { retrying: 0, failed_attempts: 0 },
  } as unknown as OperatorMetrics;
}

/** A clock and a timer the test moves by hand: no sleeps. */
function harness(answer: (namespace: string, credential: SamplerCredential) => Promise<OperatorMetrics>) {
  let now = 1_000_000;
  let ticks: (() => void) | null = null;
  const reads: [string, SamplerCredential][] = [];
  const sampler = new MetricsSampler({
    clock: { now: () => now },
    timer: (_ms, tick) => {
      ticks = tick;
      return () => {
        ticks = null;
      };
    },
    read: (namespace, credential) => {
      reads.push([namespace, credential]);
      return answer(namespace, credential);
    },
    viewerTtlMs: 60_000,
    maxNamespaces: 2,
  });
  return {
    sampler,
    reads,
    advance: (ms: number) => (now += ms),
    now: () => now,
    timerRunning: () => ticks !== null,
  };
}

describe("MetricsRing", () => {
  it("keeps the newest `capacity` points in time order, gaps included, and reads after a time", () => {
    const ring = new MetricsRing(3);
    expect(ring.bytes).toBe(3 * 8 * 8);
    expect(ring.push(sample(1))).toBe(true);
    expect(ring.push(sample(1))).toBe(false);
    ring.push({ at: 2, gap: true });
    ring.push(sample(3, 7));
    ring.push(sample(4, 9));
    expect(ring.size).toBe(3);
    expect(ring.after(null).map((p) => p.at)).toEqual([2, 3, 4]);
    expect(ring.after(null)[0]).toEqual({ at: 2, gap: true });
    expect(ring.after(3)).toEqual([sample(4, 9)]);
    expect(ring.oldestAt).toBe(2);
  });

  it("is 368,640 bytes for 24 h at 15 s", () => {
    expect(new MetricsRing(5_760).bytes).toBe(368_640);
  });
});

describe("MetricsSampler", () => {
  it("polls a viewed namespace each tick and records a gap when the server does not answer", async () => {
    let up = true;
    const h = harness(() =>
      up
        ? Promise.resolve(metricsAt(h.now(), 5))
        : Promise.reject(new DwServerUnavailableError("down", { unavailableCause: "network" })),
    );
    expect(h.sampler.view("default", null, sample(h.now()))).toBe(true);
    expect(h.timerRunning()).toBe(true);
    h.advance(15_000);
    await h.sampler.tick();
    up = false;
    h.advance(15_000);
    await h.sampler.tick();
    up = true;
    h.advance(15_000);
    await h.sampler.tick();
    const points = h.sampler.history("default", null).points;
    expect(points.map((p) => ("gap" in p ? "gap" : (p as MetricsSample).running))).toEqual([1, 5, "gap", 5]);
    expect(h.sampler.history("default", points[1]?.at ?? 0).points).toHaveLength(2);
  });

  it("forgets a namespace nobody viewed within the TTL and stops its timer", async () => {
    const h = harness(() => Promise.resolve(metricsAt(h.now(), 1)));
    h.sampler.view("default", null, sample(h.now()));
    h.advance(61_000);
    await h.sampler.tick();
    expect(h.sampler.history("default", null)).toMatchObject({ sampling: false, points: [] });
    expect(h.timerRunning()).toBe(false);
    expect(h.reads).toHaveLength(0);
  });

  it("samples at most maxNamespaces at once", () => {
    const h = harness(() => Promise.resolve(metricsAt(h.now(), 1)));
    expect(h.sampler.view("a", null, sample(h.now()))).toBe(true);
    expect(h.sampler.view("b", null, sample(h.now()))).toBe(true);
    expect(h.sampler.view("c", null, sample(h.now()))).toBe(false);
    expect(h.sampler.history("c", null).sampling).toBe(false);
    expect(h.sampler.stats()).toMatchObject({ namespaces: 2, maxNamespaces: 2 });
  });

  it("polls with the least-privileged role seen passing, and stops after the server refuses it", async () => {
    const h = harness(() => Promise.reject(new DwForbiddenError("no", { httpStatus: 403 })));
    h.sampler.view("default", "admin", sample(h.now()));
    h.sampler.view("default", "operator", sample(h.now() + 1));
    h.sampler.view("default", "admin", sample(h.now() + 2));
    h.advance(15_000);
    await h.sampler.tick();
    h.advance(15_000);
    await h.sampler.tick();
    expect(h.reads).toEqual([["default", "operator"]]);
    expect(h.sampler.history("default", null).points.at(-1)).toMatchObject({ gap: true });
  });
});
