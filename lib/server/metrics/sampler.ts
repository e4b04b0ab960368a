import "server-only";
import { isDwError } from "@/lib/dw/errors";
import type { OperatorMetrics } from "@/lib/dw/schemas-system";
import { PERSON_ROLES } from "@/lib/server/auth/roles";
import type { PersonRole } from "@/lib/server/auth/roles";
import { MetricsRing } from "@/lib/server/metrics/ring";
import { toSample } from "@/lib/views/metrics-samples";
import type { MetricsHistory, MetricsSample } from "@/lib/views/metrics-samples";

/**
 * The console server's metrics sampler (issue 15 point 11, docs/decisions/0027): every namespace
 * someone views on the Overview is polled for operator_metrics every 15 s into a 24 h ring, so the
 * charts show the console's history, not only what the open tab saw. A failed poll is a gap.
 * A namespace nobody has viewed for 30 min is forgotten, and at most `maxNamespaces` are sampled.
 */

/**
 * The role whose token polls a namespace: the least-privileged role that has itself passed a
 * metrics read there (null without console auth: the console's one token).
 */
export type SamplerCredential = PersonRole | null;

export type MetricsRead = (
  namespace: string,
  credential: SamplerCredential,
  signal: AbortSignal,
) => Promise<OperatorMetrics>;

export interface SamplerClock {
  now(): number;
}

/** Starts calling `tick` every `ms`; the returned function stops it. */
export type SamplerTimer = (ms: number, tick: () => void) => () => void;

export interface SamplerOptions {
  read: MetricsRead;
  clock?: SamplerClock;
  timer?: SamplerTimer;
  intervalMs?: number;
  /** Points kept per namespace: 24 h at 15 s. */
  capacity?: number;
  viewerTtlMs?: number;
  maxNamespaces?: number;
}

export const SAMPLE_INTERVAL_MS = 15_000;
export const RING_CAPACITY = 5_760;
export const VIEWER_TTL_MS = 30 * 60_000;
export const MAX_SAMPLED_NAMESPACES = 16;

interface Sampled {
  ring: MetricsRing;
  lastViewedAt: number;
  credential: SamplerCredential;
  /** False after the server refused the credential (401/403): not polled until a viewer's read passes again. */
  armed: boolean;
  polling: boolean;
}

export interface SamplerStats {
  namespaces: number;
  maxNamespaces: number;
  points: number;
  bytes: number;
  running: boolean;
}

const systemClock: SamplerClock = { now: () => Date.now() };

const intervalTimer: SamplerTimer = (ms, tick) => {
  const handle = setInterval(tick, ms);
  // The sampler never keeps the process alive on its own.
  handle.unref();
  return () => clearInterval(handle);
};

function rank(credential: SamplerCredential): number {
  return credential === null ? -1 : PERSON_ROLES.indexOf(credential);
}

function refused(error: unknown): boolean {
  return isDwError(error) && (error.reason === "unauthorized" || error.reason === "forbidden");
}

export class MetricsSampler {
  readonly intervalMs: number;
  readonly capacity: number;
  readonly viewerTtlMs: number;
  readonly maxNamespaces: number;
  private readonly read: MetricsRead;
  private readonly clock: SamplerClock;
  private readonly timer: SamplerTimer;
  private readonly sampled = new Map<string, Sampled>();
  private readonly controller = new AbortController();
  private stopTimer: (() => void) | null = null;

  constructor(options: SamplerOptions) {
    this.read = options.read;
    this.clock = options.clock ?? systemClock;
    this.timer = options.timer ?? intervalTimer;
    this.intervalMs = options.intervalMs ?? SAMPLE_INTERVAL_MS;
    this.capacity = options.capacity ?? RING_CAPACITY;
    this.viewerTtlMs = options.viewerTtlMs ?? VIEWER_TTL_MS;
    this.maxNamespaces = options.maxNamespaces ?? MAX_SAMPLED_NAMESPACES;
  }

  /**
   * A viewer whose own metrics read of `namespace` just passed: the namespace is (still) sampled,
   * with the least-privileged credential seen passing. False when the bound is reached.
   */
  view(namespace: string, credential: SamplerCredential, sample: MetricsSample): boolean {
    let entry = this.sampled.get(namespace);
    if (entry === undefined) {
      if (this.sampled.size >= this.maxNamespaces) return false;
      entry = { ring: new MetricsRing(this.capacity), lastViewedAt: 0, credential, armed: true, polling: false };
      this.sampled.set(namespace, entry);
    }
    entry.lastViewedAt = this.clock.now();
    if (!entry.armed || rank(credential) < rank(entry.credential)) entry.credential = credential;
    entry.armed = true;
    entry.ring.push(sample);
    this.stopTimer ??= this.timer(this.intervalMs, () => void this.tick());
    return true;
  }

  /** The namespace's points after `since`; an unsampled namespace has none. */
  history(namespace: string, since: number | null): MetricsHistory {
    const entry = this.sampled.get(namespace);
    return {
      sampling: entry !== undefined,
      intervalMs: this.intervalMs,
      since: entry?.ring.oldestAt ?? null,
      points: entry?.ring.after(since) ?? [],
    };
  }

  /** One round: forget namespaces nobody viewed lately, poll the rest (one poll at a time each). */
  async tick(): Promise<void> {
    const now = this.clock.now();
    const polls: Promise<void>[] = [];
    for (const [namespace, entry] of this.sampled) {
      if (now - entry.lastViewedAt > this.viewerTtlMs) this.sampled.delete(namespace);
      else if (entry.armed && !entry.polling) polls.push(this.poll(namespace, entry, entry.credential));
    }
    if (this.sampled.size === 0) this.halt();
    await Promise.all(polls);
  }

  private async poll(namespace: string, entry: Sampled, credential: SamplerCredential): Promise<void> {
    entry.polling = true;
    try {
      entry.ring.push(toSample(await this.read(namespace, credential, this.controller.signal)));
    } catch (error) {
      // The gap is stamped a little after the newest point when the two clocks disagree.
      entry.ring.push({ at: Math.max(this.clock.now(), (entry.ring.newestAt ?? 0) + 1), gap: true });
      // A credential the server refuses is not retried every 15 s; the next passing viewer re-arms it.
      if (refused(error) && entry.credential === credential) entry.armed = false;
    } finally {
      entry.polling = false;
    }
  }

  stats(): SamplerStats {
    let points = 0;
    let bytes = 0;
    for (const entry of this.sampled.values()) {
      points += entry.ring.size;
      bytes += entry.ring.bytes;
    }
    return {
      namespaces: this.sampled.size,
      maxNamespaces: this.maxNamespaces,
      points,
      bytes,
      running: this.stopTimer !== null,
    };
  }

  private halt(): void {
    this.stopTimer?.();
    this.stopTimer = null;
  }

  /** Stops the timer and any poll under way (tests; a process that shuts down). */
  stop(): void {
    this.halt();
    this.controller.abort(new DOMException("the sampler stopped", "AbortError"));
    this.sampled.clear();
  }
}
