import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { FakeClock } from "../clock";
import type { Db } from "../store/db";
import { openDb } from "../store/db";
import type { SearchPlan, SearchTuning } from "./runs";
import { DEFAULT_SEARCH_TUNING, listWorkflows } from "./runs";
import { at } from "../invariant";

/**
 * The workflow list's `query` search answers through several plans (ordered walk, trigram
 * candidates, exact phrase) chosen by cost. Whatever the plan, the pages must be exactly those of
 * the definition: rows of the namespace (and filters) whose workflow id or business key contains
 * the term, ASCII case-insensitively, in `sort_key DESC` order, cut into pages by the keyset
 * token. Small tunings force each plan on a small table.
 */

interface Row {
  id: string;
  instance: string;
  namespace: string;
  businessKey: string | null;
  bucket: string;
  type: string;
  sortKey: string;
}

const N = 2000;
const KINDS = ["Order", "refund", "parcel", "Shipment"];
const BUCKETS = ["running", "completed", "failed"];
const TYPES = ["orders.process", "refunds.approve", "parcels.ship"];
const rows: Row[] = [];

function row(i: number, instance: string, businessKey: string | null, namespace = "default"): Row {
  // Sort order deliberately unrelated to insertion (rowid) order, as with real start times.
  const ts = 1_700_000_000_000 + ((i * 7919) % 100_003) * 1000;
  const id = `run-${String(i).padStart(5, "0")}`;
  return {
    id,
    instance,
    namespace,
    businessKey,
    bucket: at(BUCKETS, i % 3),
    type: at(TYPES, i % 3),
    sortKey: `${String(ts).padStart(15, "0")}:${id}`,
  };
}

for (let i = 0; i < N; i++) {
  rows.push(
    row(i, `${at(KINDS, i % 4)}-${i}`, i % 7 === 0 ? null : `cust-${i % 300}`, i % 50 === 49 ? "other" : "default"),
  );
}
let next = N;
// A rare term's true matches, and decoys holding every trigram of it but never in sequence.
for (let k = 0; k < 12; k++) rows.push(row(next++, `batch-${k}`, `zz-q7w-e8r-${k}`));
for (let k = 0; k < 120; k++) rows.push(row(next++, `decoy-${k}`, "q7w_7w-_w-e_-e8_e8r"));
// Characters that mean something to LIKE or to FTS5 query syntax, and non-ASCII case.
for (const [instance, bk] of [
  ["promo-1", "100%_off"],
  ["promo-2", "100x_off"],
  ['say-"hi"', "quote"],
  ["CamelCaseID-7", "AND OR NOT"],
  ["uni-1", "Ünïcode-Straße"],
  ["uni-2", "ünïcode-strasse"],
  ["back\\slash", "a\\b"],
] as const) {
  rows.push(row(next++, instance, bk));
}

function asciiLower(s: string): string {
  return s.replace(/[A-Z]/g, (c) => c.toLowerCase());
}

interface Filter {
  term?: string;
  status?: string;
  type?: string;
  namespace?: string;
}

function expected(f: Filter): string[] {
  const needle = f.term === undefined ? null : asciiLower(f.term);
  return rows
    .filter((r) => r.namespace === (f.namespace ?? "default"))
    .filter((r) => !f.status || r.bucket === f.status)
    .filter((r) => !f.type || r.type === f.type)
    .filter(
      (r) => needle === null || [r.instance, r.businessKey].some((v) => v !== null && asciiLower(v).includes(needle)),
    )
    .sort((a, b) => (a.sortKey < b.sortKey ? 1 : a.sortKey > b.sortKey ? -1 : 0))
    .map((r) => r.id);
}

interface Page {
  ids: string[];
  token: string | null;
}

function page(db: Db, f: Filter, pageSize: number, token: string | undefined, tuning: SearchTuning): Page {
  const body = listWorkflows(
    db,
    {
      namespace: f.namespace ?? "default",
      query: f.term,
      status: f.status,
      workflowType: f.type,
      pageSize,
      pageToken: token,
    },
    tuning,
  ) as {
    workflows: { run_id: string }[];
    workflow_count: number;
    next_page_token: string | null;
  };
  expect(body.workflow_count).toBe(body.workflows.length);
  return { ids: body.workflows.map((w) => w.run_id), token: body.next_page_token };
}

/** Every page of a search, following next_page_token. */
function walk(db: Db, f: Filter, pageSize: number, tuning: SearchTuning = DEFAULT_SEARCH_TUNING): string[][] {
  const pages: string[][] = [];
  let token: string | undefined;
  for (let guard = 0; guard < 10_000; guard++) {
    const p = page(db, f, pageSize, token, tuning);
    pages.push(p.ids);
    if (!p.token) return pages;
    token = p.token;
  }
  throw new Error("paging did not end");
}

/** The pages the definition gives: full pages, then the remainder; one empty page when nothing matches. */
function chunks(ids: string[], size: number): string[][] {
  if (ids.length === 0) return [[]];
  const out: string[][] = [];
  for (let i = 0; i < ids.length; i += size) out.push(ids.slice(i, i + size));
  return out;
}

/** Caps small enough for a 2,000-row table to need every plan. */
const TIGHT: SearchTuning = { candidateCap: 100, walkBudget: 100, probeRows: 5, probeMax: 12, intersected: 3 };
/** A walk too short to fill a page, so a common term goes on to the phrase and the unbounded walk. */
const STARVED: SearchTuning = { ...TIGHT, walkBudget: 3 };

describe("workflow list search: same rows, order and pages whatever the plan", () => {
  let db: Db;

  beforeAll(() => {
    db = openDb(":memory:", new FakeClock(1_700_000_000_000));
    const ins = db.prepare(
      `INSERT INTO workflow_run_summaries (id, workflow_instance_id, namespace, run_number, workflow_type, business_key, status, status_bucket, sort_key, created_at, updated_at)
       VALUES (?, ?, ?, 1, ?, ?, ?, ?, ?, 0, 0)`,
    );
    db.transaction(() => {
      for (const r of rows)
        ins.run(r.id, r.instance, r.namespace, r.type, r.businessKey, r.bucket, r.bucket, r.sortKey);
    })();
  });

  afterAll(() => db.close());

  const cases: { name: string; filter: Filter; tuning: SearchTuning; plan: SearchPlan }[] = [
    {
      name: "common term, index candidates",
      filter: { term: "refund" },
      tuning: DEFAULT_SEARCH_TUNING,
      plan: "candidates",
    },
    { name: "common term, walk in list order", filter: { term: "refund" }, tuning: TIGHT, plan: "bounded_walk" },
    { name: "common term, walk past its budget", filter: { term: "refund" }, tuning: STARVED, plan: "walk" },
    { name: "common term, other case", filter: { term: "REFUND-1" }, tuning: TIGHT, plan: "bounded_walk" },
    { name: "common business-key prefix", filter: { term: "cust-1" }, tuning: TIGHT, plan: "bounded_walk" },
    {
      name: "rare term of common trigrams",
      filter: { term: "cust-123" },
      tuning: DEFAULT_SEARCH_TUNING,
      plan: "candidates",
    },
    { name: "rare term of common trigrams, tight caps", filter: { term: "t-123" }, tuning: TIGHT, plan: "candidates" },
    { name: "rare term whose trigrams co-occur in decoys", filter: { term: "q7w-e8r" }, tuning: TIGHT, plan: "phrase" },
    {
      name: "rare term among decoys, default",
      filter: { term: "Q7W-E8R" },
      tuning: DEFAULT_SEARCH_TUNING,
      plan: "candidates",
    },
    { name: "absent term", filter: { term: "zz-no-such-run" }, tuning: DEFAULT_SEARCH_TUNING, plan: "candidates" },
    { name: "two characters (no trigram)", filter: { term: "-1" }, tuning: DEFAULT_SEARCH_TUNING, plan: "walk" },
    { name: "two characters, other case", filter: { term: "oR" }, tuning: DEFAULT_SEARCH_TUNING, plan: "walk" },
    { name: "LIKE wildcards are literal", filter: { term: "0%_o" }, tuning: DEFAULT_SEARCH_TUNING, plan: "candidates" },
    {
      name: "LIKE wildcards are literal in the walk",
      filter: { term: "%_" },
      tuning: DEFAULT_SEARCH_TUNING,
      plan: "walk",
    },
    { name: "backslash is literal", filter: { term: "k\\sl" }, tuning: DEFAULT_SEARCH_TUNING, plan: "candidates" },
    { name: "FTS5 syntax is literal", filter: { term: 'y-"hi' }, tuning: TIGHT, plan: "candidates" },
    {
      name: "FTS5 operators are literal",
      filter: { term: "AND OR" },
      tuning: DEFAULT_SEARCH_TUNING,
      plan: "candidates",
    },
    {
      name: "non-ASCII letters match only their own case",
      filter: { term: "ünïcode" },
      tuning: DEFAULT_SEARCH_TUNING,
      plan: "candidates",
    },
    {
      name: "status filter with a common term",
      filter: { term: "parcel", status: "failed" },
      tuning: TIGHT,
      plan: "bounded_walk",
    },
    {
      name: "type filter with a common term",
      filter: { term: "order", type: "refunds.approve" },
      tuning: TIGHT,
      plan: "bounded_walk",
    },
    {
      name: "type filter, walk past its budget",
      filter: { term: "order", type: "refunds.approve" },
      tuning: STARVED,
      plan: "walk",
    },
    {
      name: "status filter with a rare term",
      filter: { term: "cust-123", status: "running" },
      tuning: DEFAULT_SEARCH_TUNING,
      plan: "candidates",
    },
    { name: "other namespace", filter: { term: "refund", namespace: "other" }, tuning: TIGHT, plan: "bounded_walk" },
  ];

  for (const c of cases) {
    test(`${c.name}: ${JSON.stringify(c.filter)} via ${c.plan}`, () => {
      const want = expected(c.filter);
      for (const size of [1, 5, 6, 12, 50]) {
        const got = walk(db, c.filter, size, c.tuning);
        expect(got, `page size ${size}`).toEqual(chunks(want, size));
      }
      // The plan that answers the first page of 5 is the one the case is about.
      const plans: SearchPlan[] = [];
      page(db, c.filter, 5, undefined, { ...c.tuning, onPlan: (p) => plans.push(p) });
      expect(plans).toEqual([c.plan]);
    });
  }

  test("the definition itself: fixtures give common, rare and empty answers", () => {
    expect(expected({ term: "refund" }).length).toBeGreaterThan(400);
    expect(expected({ term: "cust-123" }).length).toBeGreaterThan(3);
    expect(expected({ term: "q7w-e8r" })).toHaveLength(12);
    expect(expected({ term: "Q7W-E8R" })).toHaveLength(12);
    expect(expected({ term: "0%_o" })).toHaveLength(1);
    expect(expected({ term: "ünïcode" })).toHaveLength(1);
    expect(expected({ term: "zz-no-such-run" })).toHaveLength(0);
  });

  test("a page boundary exactly at the last match ends paging without an empty page", () => {
    // 12 matches in pages of 6: the second page is full and is the last.
    const pages = walk(db, { term: "q7w-e8r" }, 6, TIGHT);
    expect(pages.map((p) => p.length)).toEqual([6, 6]);
  });

  test("a page token means the same position under every plan", () => {
    for (const term of ["refund", "cust-12", "q7w-e8r"]) {
      const first = page(db, { term }, 5, undefined, DEFAULT_SEARCH_TUNING);
      expect(first.token).not.toBeNull();
      const token = first.token ?? undefined;
      const second = [DEFAULT_SEARCH_TUNING, TIGHT, STARVED].map((t) => page(db, { term }, 5, token, t));
      for (const p of second) expect(p).toEqual(second[0]);
      expect(second[0]?.ids).toEqual(expected({ term }).slice(5, 10));
    }
  });

  test("a term holding a NUL is answered by the ordered walk, not refused by FTS5", () => {
    const id = "run-nul";
    db.prepare(
      `INSERT INTO workflow_run_summaries (id, workflow_instance_id, namespace, run_number, workflow_type, status, status_bucket, sort_key, created_at, updated_at)
       VALUES (?, ?, 'default', 1, 't', 'running', 'running', '999999999999999:run-nul', 0, 0)`,
    ).run(id, "nul\u0000byte");
    try {
      const plans: SearchPlan[] = [];
      const first = page(db, { term: "nul\u0000byte" }, 50, undefined, {
        ...DEFAULT_SEARCH_TUNING,
        onPlan: (p) => plans.push(p),
      });
      expect(first.ids).toContain(id);
      expect(plans).toEqual(["walk"]);
    } finally {
      db.prepare("DELETE FROM workflow_run_summaries WHERE id = ?").run(id);
    }
  });

  test("the index follows renamed business keys", () => {
    const target = rows.find((r) => r.businessKey === "zz-q7w-e8r-3");
    expect(target).toBeDefined();
    db.prepare("UPDATE workflow_run_summaries SET business_key = 'renamed-key-xyz' WHERE id = ?").run(target?.id);
    try {
      expect(walk(db, { term: "renamed-key" }, 50)).toEqual([[target?.id]]);
      expect(walk(db, { term: "q7w-e8r" }, 50, TIGHT)[0]).not.toContain(target?.id);
    } finally {
      db.prepare("UPDATE workflow_run_summaries SET business_key = 'zz-q7w-e8r-3' WHERE id = ?").run(target?.id);
    }
  });
});
