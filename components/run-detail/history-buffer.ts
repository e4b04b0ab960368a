import type { HistoryEventInput, ViewEvent } from "@/lib/views/events";
import { classifyFailureEvent, toViewEvent } from "@/lib/views/events";

/**
 * The run's history as the History view holds it: one slot per sequence number, so keyset pages
 * and the live tail can arrive in any order, overlap, and repeat without duplicating a row.
 * Plain TypeScript behind the `useHistory` hook, so it is tested without a browser.
 */
export class HistoryBuffer {
  private readonly bySequence = new Map<number, ViewEvent>();
  private ordered: ViewEvent[] | null = [];
  private readonly types = new Set<string>();

  /** Adds events; returns how many were new. */
  add(events: readonly HistoryEventInput[]): number {
    let added = 0;
    for (const input of events) {
      if (this.bySequence.has(input.sequence)) continue;
      const event = toViewEvent(input);
      this.bySequence.set(event.sequence, event);
      this.types.add(event.type);
      added++;
    }
    if (added > 0) this.ordered = null;
    return added;
  }

  get size(): number {
    return this.bySequence.size;
  }

  get lastSequence(): number | null {
    const all = this.events();
    return all.at(-1)?.sequence ?? null;
  }

  /** Events in sequence order (cached until the next add). */
  events(): readonly ViewEvent[] {
    if (this.ordered === null) {
      const sorted = [...this.bySequence.values()];
      // Pages usually arrive in order: skip the sort when they did.
      let inOrder = true;
      for (let i = 1; i < sorted.length && inOrder; i++) {
        const [before, here] = [sorted[i - 1], sorted[i]];
        inOrder = before !== undefined && here !== undefined && before.sequence < here.sequence;
      }
      if (!inOrder) sorted.sort((a, b) => a.sequence - b.sequence);
      this.ordered = sorted;
    }
    return this.ordered;
  }

  eventTypes(): string[] {
    return [...this.types].sort();
  }

  /** Events of the given types (all when empty), optionally only those recording a failure. */
  filter(types: readonly string[], failuresOnly: boolean): readonly ViewEvent[] {
    const all = this.events();
    if (types.length === 0 && !failuresOnly) return all;
    const wanted = types.length > 0 ? new Set(types) : null;
    return all.filter(
      (event) => (!wanted || wanted.has(event.type)) && (!failuresOnly || classifyFailureEvent(event) !== null),
    );
  }
}
