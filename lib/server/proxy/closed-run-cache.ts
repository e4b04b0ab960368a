import "server-only";
import { createHash } from "node:crypto";
import { LRUCache } from "lru-cache";
import { CLOSED_RUN_CACHE_TTL_MS } from "@/lib/confirm/bulk-limits";
import { countCacheLookup } from "@/lib/server/metrics/prometheus";

/**
 * Describe and debug answers of closed runs, kept in the console process (issue 14 item 4). A
 * closed run's history never changes (the export's `history_complete` is `is_terminal`;
 * docs/research/issue-14-real-server-facts.md §5), so re-reading it on every poll, every attention
 * rescan and every bulk-repair follow-up only loads the server (the real one has 4 PHP workers).
 *
 * Entries are keyed by a fingerprint of the credential the answer was read with, so one person's
 * answer never serves another token (roles change what `actions.can_*` says; a viewer must not read
 * what only an admin token may). Bounded by entries and by bytes, least recently used out first.
 * Entries also expire: these answers carry a few fields that are not the run's own and do move —
 * debug's `task_queue` (pollers, backlog) and `generated_at`, describe's `run_count` and
 * `is_current_run` once the workflow id is started again — so they are at most {@link TTL_MS} old.
 */

export const CLOSED_RUN_CACHE_MAX_ENTRIES = 4_000;
export const CLOSED_RUN_CACHE_MAX_BYTES = 16 * 1024 * 1024;
const TTL_MS = CLOSED_RUN_CACHE_TTL_MS;

export interface CachedAnswer {
  status: number;
  /** The validated, re-serialised body, as the proxy relays it. */
  body: string;
  headers: readonly (readonly [string, string])[];
}

interface Entry {
  answer: CachedAnswer;
  storedAt: number;
}

export interface ClosedRunCacheStats {
  entries: number;
  bytes: number;
  maxEntries: number;
  maxBytes: number;
  hits: number;
  misses: number;
}

export class ClosedRunCache {
  private readonly entries: LRUCache<string, Entry>;
  private hits = 0;
  private misses = 0;

  // The age is checked here, not by lru-cache's `ttl`: that one ignores an entry stored at clock 0
  // and its iterators skip expired keys, which forgetWorkflow must still drop.
  constructor(
    private readonly limits: { maxEntries: number; maxBytes: number; ttlMs: number } = {
      maxEntries: CLOSED_RUN_CACHE_MAX_ENTRIES,
      maxBytes: CLOSED_RUN_CACHE_MAX_BYTES,
      ttlMs: TTL_MS,
    },
    private readonly now: () => number = Date.now,
  ) {
    this.entries = new LRUCache<string, Entry>({
      max: limits.maxEntries,
      maxSize: limits.maxBytes,
      sizeCalculation: (entry, key) => sizeOf(key, entry.answer),
    });
  }

  get(key: string): CachedAnswer | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined || this.now() - entry.storedAt > this.limits.ttlMs) {
      if (entry !== undefined) this.entries.delete(key);
      this.misses += 1;
      countCacheLookup("closed_run", false);
      return undefined;
    }
    this.hits += 1;
    countCacheLookup("closed_run", true);
    return entry.answer;
  }

  set(key: string, answer: CachedAnswer): void {
    // One answer that would push out a large share of the others is not worth keeping. Checked here:
    // lru-cache's maxEntrySize would also drop the answer the key already holds.
    if (sizeOf(key, answer) > this.limits.maxBytes / 8) return;
    this.entries.set(key, { answer, storedAt: this.now() });
  }

  /**
   * Forgets every answer about a workflow's runs in a namespace. A closed run's history never
   * changes, but an action still changes what describe says about it (archived, a run started
   * again makes it no longer current), so every command sent through the console drops them.
   */
  forgetWorkflow(namespace: string, workflowId: string): number {
    const prefix = `workflows/${encodeURIComponent(workflowId)}/`;
    const matching = [...this.entries.keys()].filter((key) => {
      const [, keyNamespace, path] = key.split("\u0000");
      return keyNamespace === namespace && path?.startsWith(prefix) === true;
    });
    for (const key of matching) this.entries.delete(key);
    return matching.length;
  }

  clear(): void {
    this.entries.clear();
    this.hits = 0;
    this.misses = 0;
  }

  stats(): ClosedRunCacheStats {
    return {
      entries: this.entries.size,
      bytes: this.entries.calculatedSize,
      maxEntries: this.limits.maxEntries,
      maxBytes: this.limits.maxBytes,
      hits: this.hits,
      misses: this.misses,
    };
  }
}

function sizeOf(key: string, answer: CachedAnswer): number {
  let bytes = Buffer.byteLength(key) + Buffer.byteLength(answer.body) + 64;
  for (const [name, value] of answer.headers) bytes += name.length + value.length;
  return bytes;
}

/** A digest of the credential headers of one call: the same token, the same fingerprint; never the token itself. */
export function credentialFingerprint(headers: Readonly<Record<string, string>>): string {
  const pairs = Object.entries(headers)
    .map(([name, value]) => `${name.toLowerCase()}:${value}`)
    .sort();
  return createHash("sha256").update(pairs.join("\n")).digest("base64url");
}

/** Which closed-run answer a proxied path is: a run named by id (never `workflows/{id}`, whose current run moves on). */
export function closedRunRead(segments: readonly string[]): "describe" | "debug" | null {
  if (segments[0] !== "workflows" || segments[2] !== "runs") return null;
  if (segments.length === 4) return "describe";
  return segments.length === 5 && segments[4] === "debug" ? "debug" : null;
}

export function closedRunKey(
  fingerprint: string,
  namespace: string,
  segments: readonly string[],
  search: string,
): string {
  const query = new URLSearchParams(search);
  query.sort();
  return [fingerprint, namespace, segments.map(encodeURIComponent).join("/"), query.toString()].join("\u0000");
}

/** True when a validated describe or debug body says its run is closed. */
export function isClosedAnswer(read: "describe" | "debug", value: unknown): boolean {
  if (typeof value !== "object" || value === null) return false;
  if (read === "describe") return "is_terminal" in value && value.is_terminal === true;
  const execution = "execution" in value ? value.execution : null;
  return (
    typeof execution === "object" && execution !== null && "is_terminal" in execution && execution.is_terminal === true
  );
}

const SHARED = Symbol.for("breakwater.closedRunCache");

/** The process-wide cache (one per process even when a dev server loads this module twice). */
export function closedRunCache(): ClosedRunCache {
  const holder = globalThis as { [SHARED]?: ClosedRunCache };
  holder[SHARED] ??= new ClosedRunCache();
  return holder[SHARED];
}
