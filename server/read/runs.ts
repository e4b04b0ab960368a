import type { Db } from "../store/db";
import type { InstanceRow, RunRow } from "../engine/rows";
import { isTerminal } from "../engine/rows";
import { statusBucket } from "../engine/summary";
import { isoMicros, isoOffset, memoValue, parseObject } from "./format";
import type { Json } from "./format";
import { at } from "../invariant";
import { parseVisibilityQuery } from "./visibility-query";
import { visibilitySql } from "./visibility-filter";

export function findInstance(db: Db, namespace: string, workflowId: string): InstanceRow | undefined {
  return db.prepare("SELECT * FROM workflow_instances WHERE namespace = ? AND id = ?").get(namespace, workflowId) as
    InstanceRow | undefined;
}

export function findRun(db: Db, runId: string): RunRow | undefined {
  return db.prepare("SELECT * FROM workflow_runs WHERE id = ?").get(runId) as RunRow | undefined;
}

/** The current run of an instance: the instance pointer, else the highest run number. */
export function currentRun(db: Db, instance: InstanceRow): RunRow | undefined {
  if (instance.current_run_id) {
    const run = findRun(db, instance.current_run_id);
    if (run) return run;
  }
  return db
    .prepare(
      "SELECT * FROM workflow_runs WHERE namespace = ? AND workflow_instance_id = ? ORDER BY run_number DESC LIMIT 1",
    )
    .get(instance.namespace, instance.id) as RunRow | undefined;
}

/**
 * Maps render as objects, empty ones as `{}`: the published CLI envelopes type them `object|null`
 * (the PHP server's `[]` for an empty map is a serialisation accident clients must tolerate).
 */
function mapOrEmpty(text: string | null): Json {
  return parseObject(text) ?? {};
}

function envelope(codec: string | null, blob: string | null): { codec: string; blob: string } | null {
  return blob === null ? null : { codec: codec ?? "avro", blob };
}

export type PayloadDecoder = (envelope: { codec: string; blob: string }) => unknown;

/** `formatRun` of the real server: the describe / describe_run body (without `control_plane`). */
export function describeRun(db: Db, run: RunRow, instance: InstanceRow, decode: PayloadDecoder): Json {
  const summary = db.prepare("SELECT wait_kind, wait_reason FROM workflow_run_summaries WHERE id = ?").get(run.id) as
    { wait_kind: string | null; wait_reason: string | null } | undefined;
  const current = currentRun(db, instance);
  const isCurrent = current?.id === run.id;
  const open = !isTerminal(run.status);
  const input = envelope(run.payload_codec, run.arguments);
  const output = envelope(run.output_payload_codec ?? run.payload_codec, run.output);
  const decodedInput = input ? decode(input) : [];
  return {
    workflow_id: run.workflow_instance_id,
    run_id: run.id,
    namespace: run.namespace,
    workflow_type: run.workflow_type,
    business_key: run.business_key,
    status: run.status,
    status_bucket: statusBucket(run.status),
    is_terminal: !open,
    closed_reason: run.closed_reason,
    task_queue: run.queue,
    run_number: run.run_number,
    run_count: instance.run_count,
    is_current_run: isCurrent,
    compatibility: run.compatibility,
    payload_codec: run.payload_codec ?? "avro",
    execution_timeout_seconds: run.execution_timeout_seconds ?? instance.execution_timeout_seconds,
    run_timeout_seconds: run.run_timeout_seconds,
    execution_deadline_at: isoOffset(run.execution_deadline_at),
    run_deadline_at: isoOffset(run.run_deadline_at),
    input: Array.isArray(decodedInput) ? decodedInput : [decodedInput],
    output: output ? decode(output) : null,
    input_envelope: input,
    output_envelope: output,
    started_at: isoMicros(run.started_at),
    closed_at: isoMicros(run.closed_at),
    last_progress_at: isoOffset(run.last_progress_at),
    wait_kind: summary?.wait_kind ?? null,
    wait_reason: summary?.wait_reason ?? null,
    memo: memoValue(run.memo),
    search_attributes: mapOrEmpty(run.search_attributes),
    actions: {
      can_signal: isCurrent && open,
      // Queries and updates have no control-plane route on this server, so they are never offered.
      can_query: false,
      can_update: false,
      can_cancel: isCurrent && open,
      can_terminate: isCurrent && open,
      can_repair: isCurrent && open,
      can_archive: !open && run.archived_at === null,
    },
  };
}

/** `GET /workflows/{id}/runs`: every run of the chain, oldest first, no paging. */
export function listRuns(db: Db, instance: InstanceRow): Json {
  const rows = db
    .prepare("SELECT * FROM workflow_runs WHERE namespace = ? AND workflow_instance_id = ? ORDER BY run_number")
    .all(instance.namespace, instance.id) as RunRow[];
  return {
    workflow_id: instance.id,
    run_count: rows.length,
    runs: rows.map((r) => ({
      namespace: r.namespace,
      run_id: r.id,
      run_number: r.run_number,
      workflow_type: r.workflow_type,
      business_key: r.business_key,
      status: r.status,
      status_bucket: statusBucket(r.status),
      closed_reason: r.closed_reason,
      task_queue: r.queue,
      started_at: isoMicros(r.started_at),
      closed_at: isoMicros(r.closed_at),
    })),
  };
}

export interface ListQuery {
  namespace: string;
  status?: string;
  workflowType?: string;
  query?: string;
  pageSize: number;
  pageToken?: string;
}

interface ListRow {
  id: string;
  workflow_instance_id: string;
  workflow_type: string;
  business_key: string | null;
  status: string;
  status_bucket: string;
  queue: string | null;
  started_at: number | null;
  closed_at: number | null;
  sort_key: string;
}

/**
 * Keyset page token over `sort_key` (= sort_timestamp, run id). Opaque to clients; unlike the
 * real server's offset token it cannot drift when new runs arrive, and deep pages stay as cheap as
 * the first. A malformed token restarts from the first page, as the real server does.
 */
function encodeListToken(sortKey: string): string {
  return Buffer.from(JSON.stringify({ v: 1, k: sortKey })).toString("base64url");
}

function decodeListToken(token: string | undefined): string | null {
  if (!token) return null;
  try {
    const v: unknown = JSON.parse(Buffer.from(token, "base64url").toString("utf8"));
    if (v && typeof v === "object" && "k" in v && typeof (v as { k: unknown }).k === "string")
      return (v as { k: string }).k;
  } catch {
    return null;
  }
  return null;
}

function escapeLike(s: string): string {
  return s.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** How a search found its rows; every plan yields the same rows, only the cost differs. */
export type SearchPlan = "walk" | "bounded_walk" | "candidates" | "phrase";

export interface SearchTuning {
  /** The trigram index hands over at most this many candidate rows; more and the term counts as common. */
  candidateCap: number;
  /** Entries of the ordered walk a common-looking term reads at most before its exact phrase is asked. */
  walkBudget: number;
  /** Rows read per trigram to rank trigrams by rarity: cheap for common and rare trigrams alike. */
  probeRows: number;
  /** Trigrams probed at most (spread over a long term). */
  probeMax: number;
  /** How many of the rarest trigrams are intersected. */
  intersected: number;
  /** Told which plan answered (tests). */
  onPlan?: (plan: SearchPlan) => void;
  /**
   * A visibility query's candidate bound (default 20,000): its candidates are index entries read
   * in order, so sorting 20,000 of them (~20 ms) still beats walking a million runs for a 1 % match.
   */
  visibilityCandidateCap?: number;
}

/**
 * Over 1,000,000 seeded runs a candidate costs ~0.3–1 µs to re-check (a table lookup) and an entry
 * of the ordered walk ~0.1–0.3 µs (index only). A term with more than `candidateCap` matches
 * spread evenly fills a page within 51 × 1,000,000 / 2,000 ≈ 25,000 entries, inside `walkBudget`.
 */
export const DEFAULT_SEARCH_TUNING: SearchTuning = {
  candidateCap: 2_000,
  walkBudget: 30_000,
  probeRows: 500,
  probeMax: 12,
  intersected: 3,
};

/** A quoted FTS5 string: the trigram tokenizer reads every character inside it literally. */
function ftsString(s: string): string {
  return `"${s.replace(/"/g, '""')}"`;
}

/** Distinct trigrams of `term` by code point (as FTS5's trigram tokenizer splits), at most `max` spread evenly. */
function trigramsOf(term: string, max: number): string[] {
  const chars = Array.from(term);
  const seen = new Map<string, string>();
  for (let i = 0; i + 3 <= chars.length; i++) {
    const t = chars.slice(i, i + 3).join("");
    if (!seen.has(t.toLowerCase())) seen.set(t.toLowerCase(), t);
  }
  const all = [...seen.values()];
  if (all.length <= max) return all;
  return Array.from({ length: max }, (_, i) => at(all, Math.round((i * (all.length - 1)) / Math.max(1, max - 1))));
}

function ftsRowids(db: Db, match: string, limit: number): number[] {
  return db
    .prepare("SELECT rowid FROM workflow_run_search WHERE workflow_run_search MATCH ? LIMIT ?")
    .pluck()
    .all(match, limit) as number[];
}

/**
 * Summary rowids that may contain `term` (3+ characters) in their workflow id or business key —
 * a superset the caller re-checks with LIKE — from the trigram index (migration 5); or null when
 * the term's rarest trigrams occur together in more than `candidateCap` rows.
 *
 * FTS5's own LIKE / phrase evaluation steps every trigram's posting list in turn, so a rare term
 * made of common trigrams ("customer-4242": "cus", "tom", … in every row) cost about as much as
 * reading those lists whole. Here each trigram's first `probeRows` rowids rank it by rarity, and
 * only the rarest few are intersected.
 */
function trigramCandidates(db: Db, term: string, t: SearchTuning): number[] | null {
  const ranked: { trigram: string; rows: number; last: number }[] = [];
  for (const trigram of trigramsOf(term, t.probeMax)) {
    const rowids = ftsRowids(db, ftsString(trigram), t.probeRows);
    // Every trigram of a substring occurs in a matching row, so one absent trigram rules out all.
    if (rowids.length === 0) return [];
    ranked.push({ trigram, rows: rowids.length, last: at(rowids, rowids.length - 1) });
  }
  // Fewer rows is rarer; of trigrams that filled the probe, the farther the last rowid, the sparser.
  ranked.sort((a, b) => a.rows - b.rows || b.last - a.last);
  const rarest = ranked
    .slice(0, t.intersected)
    .map((r) => ftsString(r.trigram))
    .join(" AND ");
  const rowids = ftsRowids(db, rarest, t.candidateCap + 1);
  return rowids.length <= t.candidateCap ? rowids : null;
}

/** Rowids holding `term` as a phrase (its trigrams in sequence: the substring), or null past `candidateCap`. */
function phraseCandidates(db: Db, term: string, t: SearchTuning): number[] | null {
  const rowids = ftsRowids(db, ftsString(term), t.candidateCap + 1);
  return rowids.length <= t.candidateCap ? rowids : null;
}

const LIST_COLUMNS = `s.id, s.workflow_instance_id, s.workflow_type, s.business_key, s.status, s.status_bucket, s.queue,
  s.started_at, s.closed_at, s.sort_key`;
/** What the search means, whichever plan runs it: a substring of the workflow id or business key, ASCII case-insensitive. */
const SEARCH_LIKE = "(s.workflow_instance_id LIKE @like ESCAPE '\\' OR s.business_key LIKE @like ESCAPE '\\')";

/**
 * The first `limit` rows in list order matching `where` and, with a term, SEARCH_LIKE. Every plan
 * applies the same predicates and the same order, so they differ only in cost:
 *  - candidates: a rare term: the trigram index's candidates, re-checked and sorted;
 *  - bounded_walk: a common term: walk the list in order, at most `walkBudget` entries;
 *  - phrase: that walk fell short of a page: the exact phrase's candidates when there are at most
 *    `candidateCap` (a rare term made of trigrams common together);
 *  - walk: else, or a term the trigram index cannot take (under 3 characters, or holding a NUL,
 *    which ends an FTS5 query string): walk the list in order until a page is full.
 */
function listRows(
  db: Db,
  where: string[],
  params: Record<string, unknown>,
  term: string | undefined,
  filtered: boolean,
  t: SearchTuning,
): ListRow[] {
  const filter = where.join(" AND ");
  // Unfiltered, a search walks the search index (migration 8): LIKE reads the index entry and only
  // matching rows are fetched, where the list index the planner picks alone reads every row. A
  // status or type filter keeps its own index.
  const index = term && !filtered ? " INDEXED BY workflow_run_summaries_search" : "";
  const ordered = (extra: string) =>
    db
      .prepare(
        `SELECT ${LIST_COLUMNS} FROM workflow_run_summaries s${index} WHERE ${filter}${extra} ORDER BY s.sort_key DESC LIMIT @limit`,
      )
      .all(params) as ListRow[];
  if (!term) return ordered("");
  params.like = `%${escapeLike(term)}%`;
  const answer = (plan: SearchPlan, rows: ListRow[]) => {
    t.onPlan?.(plan);
    return rows;
  };
  const byRowids = (plan: SearchPlan, rowids: number[]) => {
    params.candidates = JSON.stringify(rowids);
    // CROSS JOIN pins json_each as the outer loop so each candidate is a rowid lookup; with
    // `rowid IN (…)` the planner preferred walking the sort_key index over the whole namespace.
    const sql = `SELECT ${LIST_COLUMNS} FROM json_each(@candidates) j CROSS JOIN workflow_run_summaries s ON s.rowid = j.value
       WHERE ${filter} AND ${SEARCH_LIKE} ORDER BY s.sort_key DESC LIMIT @limit`;
    return answer(plan, db.prepare(sql).all(params) as ListRow[]);
  };
  if (Array.from(term).length < 3 || term.includes("\u0000")) return answer("walk", ordered(` AND ${SEARCH_LIKE}`));
  const rare = trigramCandidates(db, term, t);
  if (rare) return byRowids("candidates", rare);
  params.budget = t.walkBudget;
  // The innermost query reads only the search index's columns; the planner streams it in order
  // (no sort), so the walk stops at a full page, and whole rows are read for that page alone.
  const first = db
    .prepare(
      `SELECT ${LIST_COLUMNS} FROM (
         SELECT s.r, s.sort_key FROM (
           SELECT s.rowid AS r, s.sort_key, s.workflow_instance_id, s.business_key FROM workflow_run_summaries s${index}
           WHERE ${filter} ORDER BY s.sort_key DESC LIMIT @budget
         ) s WHERE ${SEARCH_LIKE} ORDER BY s.sort_key DESC LIMIT @limit
       ) m CROSS JOIN workflow_run_summaries s ON s.rowid = m.r ORDER BY s.sort_key DESC`,
    )
    .all(params) as ListRow[];
  if (first.length === params.limit) return answer("bounded_walk", first);
  const exact = phraseCandidates(db, term, t);
  return exact ? byRowids("phrase", exact) : answer("walk", ordered(` AND ${SEARCH_LIKE}`));
}

/**
 * A visibility query's rows: when one of its positive custom comparisons matches at most
 * `visibilityCandidateCap` runs (the projection's index says so, reading at most that many entries each),
 * the fewest of those candidates re-checked and sorted; else the list walked in order with every
 * condition checked per row, which fills a page quickly exactly when matches are common.
 */
function visibilityRows(
  db: Db,
  where: string[],
  params: Record<string, unknown>,
  candidates: string[],
  t: SearchTuning,
): ListRow[] {
  const filter = where.join(" AND ");
  const cap = t.visibilityCandidateCap ?? 20_000;
  let fewest: string[] | null = null;
  for (const sql of candidates) {
    const ids = db
      .prepare(`${sql} LIMIT ${cap + 1}`)
      .pluck()
      .all(params) as string[];
    if (ids.length <= cap && (fewest === null || ids.length < fewest.length)) fewest = ids;
  }
  if (fewest !== null) {
    t.onPlan?.("candidates");
    params.candidates = JSON.stringify(fewest);
    return db
      .prepare(
        `SELECT ${LIST_COLUMNS} FROM json_each(@candidates) j CROSS JOIN workflow_run_summaries s ON s.id = j.value
           WHERE ${filter} ORDER BY s.sort_key DESC LIMIT @limit`,
      )
      .all(params) as ListRow[];
  }
  t.onPlan?.("walk");
  return db
    .prepare(
      `SELECT ${LIST_COLUMNS} FROM workflow_run_summaries s WHERE ${filter} ORDER BY s.sort_key DESC LIMIT @limit`,
    )
    .all(params) as ListRow[];
}

/** `GET /workflows`: summary rows in fixed order `sort_timestamp DESC, id DESC`. */
export function listWorkflows(db: Db, q: ListQuery, tuning: SearchTuning = DEFAULT_SEARCH_TUNING): Json {
  const where = ["s.namespace = @namespace"];
  const params: Record<string, unknown> = { namespace: q.namespace, limit: q.pageSize + 1 };
  if (q.status) {
    where.push("s.status_bucket = @status");
    params.status = q.status;
  }
  if (q.workflowType) {
    where.push("s.workflow_type = @workflowType");
    params.workflowType = q.workflowType;
  }
  const after = decodeListToken(q.pageToken);
  if (after !== null) {
    where.push("s.sort_key < @after");
    params.after = after;
  }
  // A visibility query (`Region = "eu" AND Priority > 3`) filters; any other text is the substring search.
  const visibility = q.query ? parseVisibilityQuery(q.query) : null;
  let rows: ListRow[];
  if (visibility) {
    const v = visibilitySql(db, q.namespace, visibility, params);
    rows = visibilityRows(db, [...where, ...v.where], params, v.candidates, tuning);
  } else rows = listRows(db, where, params, q.query, Boolean(q.status || q.workflowType), tuning);
  const more = rows.length > q.pageSize;
  const page = more ? rows.slice(0, q.pageSize) : rows;
  const attrs = new Map<string, string | null>();
  if (page.length > 0) {
    const found = db
      .prepare(`SELECT id, search_attributes FROM workflow_runs WHERE id IN (${page.map(() => "?").join(", ")})`)
      .all(...page.map((r) => r.id)) as { id: string; search_attributes: string | null }[];
    for (const f of found) attrs.set(f.id, f.search_attributes);
  }
  const last = page.at(-1);
  return {
    workflows: page.map((r) => ({
      namespace: q.namespace,
      workflow_id: r.workflow_instance_id,
      run_id: r.id,
      workflow_type: r.workflow_type,
      business_key: r.business_key,
      status: r.status,
      status_bucket: r.status_bucket,
      task_queue: r.queue,
      is_terminal: isTerminal(r.status),
      started_at: isoMicros(r.started_at),
      closed_at: isoMicros(r.closed_at),
      search_attributes: mapOrEmpty(attrs.get(r.id) ?? null),
    })),
    workflow_count: page.length,
    next_page_token: more && last ? encodeListToken(last.sort_key) : null,
  };
}
