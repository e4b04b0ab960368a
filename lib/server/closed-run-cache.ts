import "server-only";
import { createHash } from "node:crypto";
import { CLOSED_RUN_CACHE_TTL_MS } from "@/lib/confirm/bulk-limits";

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
  bytes: number;
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
  private readonly entries = new Map<string, Entry>();
  private bytes = 0;
  private hits = 0;
  private misses = 0;

  constructor(
    private readonly limits: { maxEntries: number; maxBytes: number; ttlMs: number } = {
      maxEntries: CLOSED_RUN_CACHE_MAX_ENTRIES,
      maxBytes: CLOSED_RUN_CACHE_MAX_BYTES,
      ttlMs: TTL_MS,
    },
    private readonly now: () => number = Date.now,
  ) {}

  get(key: string): CachedAnswer | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined || this.now() - entry.storedAt > this.limits.ttlMs) {
      if (entry !== undefined) this.drop(key, entry);
      this.misses += 1;
      return undefined;
    }
    // Map order is insertion order: re-inserting makes this the most recently used.
    this.entries.delete(key);
    this.entries.set(key, entry);
    this.hits += 1;
    return entry.answer;
  }

  set(key: string, answer: CachedAnswer): void {
    const bytes = sizeOf(key, answer);
    // One answer that would push out a large share of the others is not worth keeping.
    if (bytes > this.limits.maxBytes / 8) return;
    const previous = this.entries.get(key);
    if (previous !== undefined) this.drop(key, previous);
    this.entries.set(key, { answer, bytes, storedAt: this.now() });
    this.bytes += bytes;
    for (const [oldest, entry] of this.entries) {
      if (this.entries.size <= this.limits.maxEntries && this.bytes <= this.limits.maxBytes) break;
      this.drop(oldest, entry);
    }
  }

  /**
   * Forgets every answer about a workflow's runs in a namespace. A closed run's history never
   * changes, but an action still changes what describe says about it (archived, a run started
   * again makes it no longer current), so every command sent through the console drops them.
   */
  forgetWorkflow(namespace: string, workflowId: string): number {
    const prefix = `workflows/${encodeURIComponent(workflowId)}/`;
    let dropped = 0;
    for (const [key, entry] of this.entries) {
      const [, keyNamespace, path] = key.split("\u0000");
      if (keyNamespace === namespace && path?.startsWith(prefix)) {
        this.drop(key, entry);
        dropped += 1;
      }
    }
    return dropped;
  }

  clear(): void {
    this.entries.clear();
    this.bytes = 0;
    this.hits = 0;
    this.misses = 0;
  }

  stats(): ClosedRunCacheStats {
    return {
      entries: this.entries.size,
      bytes: this.bytes,
      maxEntries: this.limits.maxEntries,
      maxBytes: this.limits.maxBytes,
      hits: this.hits,
      misses: this.misses,
    };
  }

  private drop(key: string, entry: Entry): void {
    this.entries.delete(key);
    this.bytes -= entry.bytes;
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
