import type { Db } from "../store/db";
import type { InstanceRow, RunRow } from "../engine/rows";
import { isTerminal } from "../engine/rows";
import { statusBucket } from "../engine/summary";
import { isoMicros, isoOffset, parseObject } from "./format";
import type { Json } from "./format";

export function findInstance(db: Db, namespace: string, workflowId: string): InstanceRow | undefined {
  return db.prepare("SELECT * FROM workflow_instances WHERE namespace = ? AND id = ?").get(namespace, workflowId) as InstanceRow | undefined;
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
    .prepare("SELECT * FROM workflow_runs WHERE namespace = ? AND workflow_instance_id = ? ORDER BY run_number DESC LIMIT 1")
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
    | { wait_kind: string | null; wait_reason: string | null }
    | undefined;
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
    memo: mapOrEmpty(run.memo),
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
    if (v && typeof v === "object" && "k" in v && typeof (v as { k: unknown }).k === "string") return (v as { k: string }).k;
  } catch {
    return null;
  }
  return null;
}

function escapeLike(s: string): string {
  return s.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** Above this many matches the ordered scan finds a page faster than fetching every match. */
const SEARCH_INDEX_MATCH_CAP = 2000;

/**
 * Summary rowids whose workflow id or business key contains `term`, from the trigram index
 * (migration 5) — or null when the index cannot answer (terms under 3 characters or with LIKE
 * wildcards) or the term is so common that scanning in list order reaches a page sooner.
 */
function searchIndexMatches(db: Db, term: string): number[] | null {
  if (term.length < 3 || /[%_\\]/.test(term)) return null;
  const rows = db
    .prepare(
      `SELECT rowid AS r FROM workflow_run_search WHERE workflow_instance_id LIKE @like
       UNION SELECT rowid FROM workflow_run_search WHERE business_key LIKE @like LIMIT ${SEARCH_INDEX_MATCH_CAP + 1}`,
    )
    .all({ like: `%${term}%` }) as { r: number }[];
  return rows.length > SEARCH_INDEX_MATCH_CAP ? null : rows.map((row) => row.r);
}

/** `GET /workflows`: summary rows in fixed order `sort_timestamp DESC, id DESC`. */
export function listWorkflows(db: Db, q: ListQuery): Json {
  const where = ["s.namespace = @namespace"];
  let from = "workflow_run_summaries s";
  const params: Record<string, unknown> = { namespace: q.namespace, limit: q.pageSize + 1 };
  if (q.status) {
    where.push("s.status_bucket = @status");
    params.status = q.status;
  }
  if (q.workflowType) {
    where.push("s.workflow_type = @workflowType");
    params.workflowType = q.workflowType;
  }
  if (q.query) {
    const matches = searchIndexMatches(db, q.query);
    if (matches) {
      // CROSS JOIN pins json_each as the outer loop so each match is a rowid lookup; with
      // `rowid IN (…)` the planner preferred walking the sort_key index over the whole namespace.
      from = "json_each(@matches) j CROSS JOIN workflow_run_summaries s ON s.rowid = j.value";
      params.matches = JSON.stringify(matches);
    } else {
      where.push("(s.workflow_instance_id LIKE @like ESCAPE '\\' OR s.business_key LIKE @like ESCAPE '\\')");
      params.like = `%${escapeLike(q.query)}%`;
    }
  }
  const after = decodeListToken(q.pageToken);
  if (after !== null) {
    where.push("s.sort_key < @after");
    params.after = after;
  }
  const rows = db
    .prepare(
      `SELECT s.id, s.workflow_instance_id, s.workflow_type, s.business_key, s.status, s.status_bucket, s.queue,
              s.started_at, s.closed_at, s.sort_key
       FROM ${from} WHERE ${where.join(" AND ")} ORDER BY s.sort_key DESC LIMIT @limit`,
    )
    .all(params) as ListRow[];
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
