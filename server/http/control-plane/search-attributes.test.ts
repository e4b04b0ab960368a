import { readFileSync } from "node:fs";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { DEFAULT_SEARCH_TUNING, listWorkflows } from "../../read/runs";
import type { SearchPlan } from "../../read/runs";
import { tokenAuth } from "../test-support";
import { ScriptedWorker } from "../test-support";
import type { CpHarness } from "./test-support";
import { cp, list, startCpHarness } from "./test-support";

/**
 * Search attributes as durable-workflow/server serves them: the registry of
 * SearchAttributeController@11d35b7 (tests/Feature/SearchAttributeTest.php's cases, over real HTTP
 * and a real SQLite file) and the list's visibility queries of WorkflowVisibilityQuery@ca70b5e
 * over runs whose attributes came from a start and a worker's upsert.
 */

let h: CpHarness;

function fixture(name: string): Record<string, unknown> {
  const url = new URL(`../../../lib/dw/fixtures/${name}.json`, import.meta.url);
  return JSON.parse(readFileSync(url, "utf8")) as Record<string, unknown>;
}

function addNamespace(name: string): void {
  h.db
    .prepare(
      "INSERT INTO namespaces (name, description, retention_days, status, created_at, updated_at) VALUES (?, ?, 30, 'active', 0, 0)",
    )
    .run(name, `${name} namespace`);
}

const create = (name: unknown, type: unknown, namespace?: string) =>
  cp(h.url, "/search-attributes", { body: { name, type }, namespace });

describe("the search-attribute registry", () => {
  beforeEach(async () => {
    h = await startCpHarness();
  });
  afterEach(async () => h.close());

  test("lists the eight system attributes and no custom ones in a new namespace, in the real answer's keys", async () => {
    const r = await cp(h.url, "/search-attributes");
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      system_attributes: {
        WorkflowType: "keyword",
        WorkflowId: "keyword",
        RunId: "keyword",
        Status: "keyword",
        StartTime: "datetime",
        CloseTime: "datetime",
        TaskQueue: "keyword",
        BuildId: "keyword",
      },
      custom_attributes: {},
    });
    expect(Object.keys(r.body).sort()).toEqual(Object.keys(fixture("search-attribute-list")).sort());
    expect(r.headers.get("x-durable-workflow-control-plane-version")).toBe("2");
  });

  test("creates each allowed type durably (201 created), lists them by name, scoped to the namespace", async () => {
    const types = ["keyword", "text", "int", "double", "bool", "datetime", "keyword_list"];
    for (const type of types) {
      const name = `Attr${type.replace("_", "")}`;
      const r = await create(name, type);
      expect(r.status).toBe(201);
      expect(r.body).toEqual({ name, type, outcome: "created" });
    }
    expect(Object.keys(fixture("search-attribute-created")).sort()).toEqual(["name", "outcome", "type"]);
    addNamespace("other");
    expect((await create("Region", "keyword", "other")).status).toBe(201);
    const def = await cp(h.url, "/search-attributes");
    expect(Object.keys(def.body.custom_attributes as object)).toEqual(
      ["Attrbool", "Attrdatetime", "Attrdouble", "Attrint", "Attrkeywordlist", "Attrtext", "Attrkeyword"].sort(),
    );
    expect(def.body.custom_attributes).not.toHaveProperty("Region");
    const other = await cp(h.url, "/search-attributes", { namespace: "other" });
    expect(other.body.custom_attributes).toEqual({ Region: "keyword" });
    const row = h.db
      .prepare("SELECT namespace, type FROM search_attribute_definitions WHERE name = 'Attrint'")
      .get() as { namespace: string; type: string };
    expect(row).toEqual({ namespace: "default", type: "int" });
  });

  test("refuses a reserved name, a duplicate, a bad name or type, in the real words", async () => {
    const reserved = await create("WorkflowId", "keyword");
    expect(reserved.status).toBe(409);
    expect(reserved.body).toEqual({
      message: "The name [WorkflowId] is reserved as a system search attribute.",
      reason: "name_reserved",
    });
    expect((await create("Priority", "int")).status).toBe(201);
    const duplicate = await create("Priority", "keyword");
    expect(duplicate.status).toBe(409);
    expect(duplicate.body).toMatchObject({
      reason: "attribute_already_exists",
      message: "A custom search attribute [Priority] already exists in namespace [default].",
      name: "Priority",
      type: "int",
    });
    expect(Object.keys(duplicate.body).sort()).toEqual(Object.keys(fixture("search-attribute-duplicate")).sort());
    for (const name of ["123invalid", "has spaces", "x".repeat(129)]) {
      const bad = await create(name, "keyword");
      expect(bad.status).toBe(422);
      expect(bad.body.errors).toHaveProperty("name");
    }
    const badType = await create("ValidName", "invalid_type");
    expect(badType.status).toBe(422);
    expect(badType.body.errors).toEqual({ type: ["The selected type is invalid."] });
    const missing = await cp(h.url, "/search-attributes", { body: {} });
    expect(missing.status).toBe(422);
    expect(missing.body.errors).toEqual({
      name: ["The name field is required."],
      type: ["The type field is required."],
    });
  });

  test("deletes a custom attribute; a system one is 409, an unknown or another namespace's is 404", async () => {
    addNamespace("other");
    expect((await create("Obsolete", "keyword")).status).toBe(201);
    expect((await create("OtherAttr", "keyword", "other")).status).toBe(201);
    const gone = await cp(h.url, "/search-attributes/Obsolete", { method: "DELETE" });
    expect(gone.status).toBe(200);
    expect(gone.body).toEqual({ name: "Obsolete", outcome: "deleted" });
    expect((await cp(h.url, "/search-attributes")).body.custom_attributes).toEqual({});
    const again = await cp(h.url, "/search-attributes/Obsolete", { method: "DELETE" });
    expect(again.status).toBe(404);
    expect(again.body).toEqual({
      message: "Custom search attribute [Obsolete] not found in namespace [default].",
      reason: "attribute_not_found",
    });
    const system = await cp(h.url, "/search-attributes/WorkflowType", { method: "DELETE" });
    expect(system.status).toBe(409);
    expect(system.body).toEqual({
      message: "The system search attribute [WorkflowType] cannot be removed.",
      reason: "system_attribute",
    });
    expect((await cp(h.url, "/search-attributes/OtherAttr", { method: "DELETE" })).status).toBe(404);
    expect((await cp(h.url, "/search-attributes", { namespace: "other" })).body.custom_attributes).toEqual({
      OtherAttr: "keyword",
    });
  });

  test("refuses the 101st custom attribute of a namespace with the limit", async () => {
    const insert = h.db.prepare(
      "INSERT INTO search_attribute_definitions (namespace, name, type, created_at, updated_at) VALUES ('default', ?, 'keyword', 0, 0)",
    );
    for (let i = 0; i < 100; i++) insert.run(`A${i}`);
    const r = await create("OneTooMany", "keyword");
    expect(r.status).toBe(422);
    expect(r.body).toEqual({
      message: "Namespace [default] has reached the maximum of 100 custom search attributes.",
      reason: "search_attribute_limit_reached",
      limit: 100,
    });
  });
});

describe("roles, version header and namespace, in the real middleware order", () => {
  beforeEach(async () => {
    h = await startCpHarness({
      auth: tokenAuth({ DW_WORKER_TOKEN: "w-tok", DW_OPERATOR_TOKEN: "op-tok", DW_ADMIN_TOKEN: "adm-tok" }),
    });
  });
  afterEach(async () => h.close());

  test("operator and admin tokens may list, create and delete; a worker token is 403; no token 401", async () => {
    expect((await cp(h.url, "/search-attributes")).status).toBe(401);
    expect((await cp(h.url, "/search-attributes", { token: "w-tok" })).status).toBe(403);
    const created = await cp(h.url, "/search-attributes", {
      token: "op-tok",
      body: { name: "Region", type: "keyword" },
    });
    expect(created.status).toBe(201);
    expect((await cp(h.url, "/search-attributes/Region", { token: "adm-tok", method: "DELETE" })).status).toBe(200);
    const noVersion = await cp(h.url, "/search-attributes", { token: "op-tok", version: null });
    expect(noVersion.status).toBe(400);
    expect(noVersion.body.reason).toBe("missing_control_plane_version");
    const unknownNs = await cp(h.url, "/search-attributes", { token: "op-tok", namespace: "nowhere" });
    expect(unknownNs.status).toBe(404);
    expect(unknownNs.body.reason).toBe("namespace_not_found");
  });
});

describe("the list filtered by visibility queries", () => {
  let worker: ScriptedWorker;

  async function start(id: string, attrs: Record<string, unknown>, type = "orders.ship"): Promise<string> {
    const r = await cp(h.url, "/workflows", {
      body: { workflow_id: id, workflow_type: type, task_queue: "default", search_attributes: attrs },
    });
    expect(r.status).toBe(201);
    h.clock.advance(1000);
    return r.body.run_id as unknown as string;
  }

  const ids = async (query: string): Promise<string[]> => {
    const r = await cp(h.url, `/workflows?query=${encodeURIComponent(query)}`);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return list(r.body.workflows).map((w) => w.workflow_id as unknown as string);
  };

  beforeEach(async () => {
    h = await startCpHarness();
    worker = new ScriptedWorker(h.url, "sa-worker");
    await worker.register();
    for (const [name, type] of [
      ["Region", "keyword"],
      ["Priority", "int"],
      ["Score", "double"],
      ["Urgent", "bool"],
      ["DueAt", "datetime"],
      ["Tags", "keyword_list"],
      ["Note", "text"],
    ])
      expect((await create(name, type)).status).toBe(201);
    await start("o-1", {
      Region: "eu",
      Priority: 1,
      Score: 0.5,
      Urgent: true,
      DueAt: "2026-12-01T10:00:00Z",
      Tags: ["a", "b"],
    });
    await start("o-2", {
      Region: "us",
      Priority: 5,
      Score: 2,
      Urgent: false,
      DueAt: "2026-12-09T10:00:00.000000Z",
      Tags: ["b"],
    });
    await start("o-3", { Region: "eu", Priority: 9, Note: "fragile glass" }, "orders.refund");
    await start("o-4", {});
  });
  afterEach(async () => h.close());

  test("keyword, int, double, bool, datetime and keyword-list comparisons, AND, IN, NOT", async () => {
    expect(await ids('Region = "eu"')).toEqual(["o-3", "o-1"]);
    expect(await ids("Region = eu AND Priority > 3")).toEqual(["o-3"]);
    expect(await ids("Region != eu")).toEqual(["o-2"]);
    expect(await ids("Priority >= 5")).toEqual(["o-3", "o-2"]);
    expect(await ids("Score < 1")).toEqual(["o-1"]);
    expect(await ids("Score >= 2")).toEqual(["o-2"]);
    expect(await ids("Urgent AND Region = eu")).toEqual(["o-1"]);
    expect(await ids("NOT Urgent")).toEqual(["o-2"]);
    expect(await ids('DueAt > "2026-12-05T00:00:00Z"')).toEqual(["o-2"]);
    expect(await ids("Tags = b")).toEqual(["o-2", "o-1"]);
    expect(await ids("Tags IN (a, z)")).toEqual(["o-1"]);
    expect(await ids("Region IN ('us', 'mars')")).toEqual(["o-2"]);
    expect(await ids("NOT Region IN (eu)")).toEqual(["o-2"]);
    expect(await ids('Note = "fragile glass"')).toEqual(["o-3"]);
    expect(await ids("WorkflowType = orders.refund")).toEqual(["o-3"]);
    expect(await ids("Status = running AND Region = us")).toEqual(["o-2"]);
    expect(await ids("Unregistered = x")).toEqual([]);
    // A plain term stays the workflow-id / business-key substring search.
    expect(await ids("o-4")).toEqual(["o-4"]);
  });

  test("a worker's upsert moves a run in and out of a filter", async () => {
    const task = await worker.mustPollWorkflow();
    const done = await worker.completeWorkflow(task, [
      { type: "upsert_search_attributes", attributes: { Region: "apac", Priority: null } },
    ]);
    expect(done.status).toBe(200);
    const moved = (task as { workflow_id: string }).workflow_id;
    expect(await ids("Region = apac")).toEqual([moved]);
    expect(await ids("Priority >= 0")).not.toContain(moved);
  });

  test("bad queries are 422 with the real messages under `query`", async () => {
    const cases: [string, string][] = [
      ["Region = eu OR Region = us", "Visibility query literal [eu OR Region = us] is not valid."],
      ["Priority = high", "[Priority] must be compared with an integer literal."],
      ["Region > eu", "[keyword search attribute] only supports equality comparisons."],
      ["Priority > 0 AND Region", "[Region] must be compared with an explicit comparison."],
      ["Tags != a", "keyword_list search attributes only support membership equality comparisons."],
      ["Tags NOT IN (a)", "Visibility query predicates must use: Field = literal."],
      ["Status > running", "[Status] only supports equality comparisons."],
      ["DueAt > yesterday-ish", "[DueAt] must be compared with a datetime literal."],
      ["Region = eu AND", "Visibility query predicates must use: Field = literal."],
    ];
    for (const [query, message] of cases) {
      const r = await cp(h.url, `/workflows?query=${encodeURIComponent(query)}`);
      expect(r.status, query).toBe(422);
      expect(r.body.errors, query).toEqual({ query: [message] });
    }
  });

  test("the candidate plan and the ordered walk answer the same pages", async () => {
    for (let i = 0; i < 6; i++) await start(`q-${i}`, { Region: i % 2 === 0 ? "eu" : "us", Priority: i });
    for (const query of ["Region = eu", "Priority >= 2 AND Region = us", "Priority IN (1, 4, 5)", "Region != eu"]) {
      const plans: SearchPlan[] = [];
      const pages = (cap: number) => {
        const out: unknown[] = [];
        let token: string | undefined;
        do {
          const page = listWorkflows(
            h.db,
            { namespace: "default", query, pageSize: 2, pageToken: token },
            { ...DEFAULT_SEARCH_TUNING, visibilityCandidateCap: cap, onPlan: (p) => plans.push(p) },
          ) as { workflows: { workflow_id: string }[]; next_page_token: string | null };
          out.push(...page.workflows.map((w) => w.workflow_id));
          token = page.next_page_token ?? undefined;
        } while (token);
        return out;
      };
      const candidates = pages(1000);
      const walked = pages(0);
      expect(walked, query).toEqual(candidates);
      expect(candidates.length, query).toBeGreaterThan(0);
      if (query !== "Region != eu") expect(plans).toContain("candidates");
      expect(plans).toContain("walk");
    }
  });

  test("filters page by the keyset token like the unfiltered list", async () => {
    for (let i = 0; i < 5; i++) await start(`p-${i}`, { Region: "eu" });
    const first = await cp(h.url, `/workflows?page_size=3&query=${encodeURIComponent("Region = eu")}`);
    expect(list(first.body.workflows).map((w) => w.workflow_id)).toEqual(["p-4", "p-3", "p-2"]);
    const token = first.body.next_page_token as unknown as string;
    const second = await cp(
      h.url,
      `/workflows?page_size=3&query=${encodeURIComponent("Region = eu")}&next_page_token=${token}`,
    );
    expect(list(second.body.workflows).map((w) => w.workflow_id)).toEqual(["p-1", "p-0", "o-3"]);
  });
});
