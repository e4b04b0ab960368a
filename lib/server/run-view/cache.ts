import "server-only";
import { LRUCache } from "lru-cache";
import type { ChunkSpan } from "./answer-gzip";
import { countCacheLookup } from "@/lib/server/metrics/prometheus";

/**
 * Closed runs' derived views and extras, kept as the bytes they are sent as (issue 14): a repeat view
 * writes buffers and does no JSON work. One LRU bounded by bytes (BREAKWATER_RUN_VIEW_CACHE_MB) holds
 * both kinds; an entry's size is every buffer it holds. Closed runs never change (export
 * `history_complete` is `is_terminal`), so an entry is never stale, only evicted.
 */

export interface CachedView {
  kind: "view";
  total: number | null;
  lastSequence: number;
  /** The `hit` meta line (from 0), then every chunk line in order, then the tail: the whole answer. */
  meta: Buffer;
  /**
   * Each chunk's sequence and byte length, in order: where its line sits in the inflated answer. The
   * plain lines are not kept (they are over ten times the gzip), and the
   * rare plain or `since` answer inflates the gzip instead (service.ts `chunkLines`).
   */
  chunkIndex: ChunkSpan[];
  /** progress + snapshot + done. */
  tail: Buffer[];
  /** The whole answer gzip-compressed, as made while the run was walked (answer-gzip.ts). */
  gzip: Buffer;
  /** Page ends a `since` may name (a run that closed while a browser tailed it). */
  boundaries: number[];
}

export interface CachedExtras {
  kind: "extras";
  /** The `RunViewExtras` JSON. */
  body: Buffer;
}

export type CacheEntry = CachedView | CachedExtras;

export function entryBytes(entry: CacheEntry): number {
  if (entry.kind === "extras") return entry.body.length;
  let bytes = entry.meta.length + entry.gzip.length + (entry.boundaries.length + entry.chunkIndex.length * 2) * 8;
  for (const line of entry.tail) bytes += line.length;
  return bytes;
}

export class RunViewCache {
  private readonly lru: LRUCache<string, CacheEntry>;

  constructor(readonly maxBytes: number) {
    // lru-cache needs a positive maxSize; 0 MB means "cache nothing", which `set` handles.
    this.lru = new LRUCache<string, CacheEntry>({
      maxSize: Math.max(1, maxBytes),
      sizeCalculation: (entry) => Math.max(1, entryBytes(entry)),
    });
  }

  get(key: string): CacheEntry | undefined {
    const entry = this.lru.get(key);
    countCacheLookup("run_view", entry !== undefined);
    return entry;
  }

  /** Stores the entry unless it alone is larger than the whole cache (lru-cache would refuse it anyway). */
  set(key: string, entry: CacheEntry): boolean {
    if (this.maxBytes === 0 || entryBytes(entry) > this.maxBytes) return false;
    this.lru.set(key, entry);
    return this.lru.has(key);
  }

  has(key: string): boolean {
    return this.lru.has(key);
  }

  get entries(): number {
    return this.lru.size;
  }

  get bytes(): number {
    return this.lru.calculatedSize;
  }
}
