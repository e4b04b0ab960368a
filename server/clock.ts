/**
 * Every engine decision that depends on time reads it from a Clock, so tests drive time with
 * a FakeClock instead of sleeping. Times are epoch milliseconds throughout the server.
 */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

export class FakeClock implements Clock {
  constructor(private current: number = Date.parse("2026-01-15T10:00:00.000Z")) {}
  now(): number {
    return this.current;
  }
  advance(ms: number): number {
    this.current += ms;
    return this.current;
  }
  set(ms: number): void {
    this.current = ms;
  }
}

/** ISO-8601 with microseconds, the form the real server's JSON uses (`2026-01-15T10:00:00.000000Z`). */
export function isoMicros(ms: number | null | undefined): string | null {
  if (ms === null || ms === undefined) return null;
  // One transition formats the same instant many times (its `now` in every snapshot and view).
  if (ms === lastIsoMs) return lastIso;
  // toISOString always ends in `.sssZ`, for every year it can print.
  lastIso = `${new Date(ms).toISOString().slice(0, -1)}000Z`;
  lastIsoMs = ms;
  return lastIso;
}

let lastIsoMs = Number.NaN;
let lastIso = "";
