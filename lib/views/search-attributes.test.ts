import { describe, expect, it } from "vitest";
import listFixture from "@/lib/dw/fixtures/search-attribute-list.json";
import emptyFixture from "@/lib/dw/fixtures/search-attribute-list-empty.json";
import { searchAttributeListSchema } from "@/lib/dw/schemas-search-attributes";
import {
  attributePredicate,
  isVisibilityQuery,
  operatorsFor,
  registryRows,
  splitPredicates,
  typedAttributes,
  withoutPredicate,
  withPredicate,
} from "./search-attributes";

const registry = searchAttributeListSchema.parse(listFixture);

describe("the registry", () => {
  it("decodes the real answers, PHP's empty `[]` as no custom attributes", () => {
    expect(searchAttributeListSchema.parse(emptyFixture).custom_attributes).toEqual({});
    expect(registryRows(registry)).toEqual([
      { name: "WorkflowType", type: "keyword", system: true },
      { name: "WorkflowId", type: "keyword", system: true },
      { name: "RunId", type: "keyword", system: true },
      { name: "Status", type: "keyword", system: true },
      { name: "StartTime", type: "datetime", system: true },
      { name: "CloseTime", type: "datetime", system: true },
      { name: "TaskQueue", type: "keyword", system: true },
      { name: "BuildId", type: "keyword", system: true },
      { name: "OrderStatus", type: "keyword", system: false },
      { name: "Priority", type: "int", system: false },
    ]);
  });
});

describe("typed values on the run header", () => {
  const withTypes = {
    system_attributes: {},
    custom_attributes: { DueAt: "datetime", Tags: "keyword_list", Region: "keyword", Score: "double", Urgent: "bool" },
  };

  it("renders each value by its registered type, by name", () => {
    expect(
      typedAttributes(
        { Urgent: true, DueAt: "2026-12-07T10:00:00.000000Z", Tags: ["a", "b"], Region: "eu", Score: 2.5 },
        withTypes,
      ),
    ).toEqual([
      {
        name: "DueAt",
        type: "datetime",
        value: { kind: "datetime", ms: Date.UTC(2026, 11, 7, 10), raw: "2026-12-07T10:00:00.000000Z" },
      },
      { name: "Region", type: "keyword", value: { kind: "chips", items: ["eu"] } },
      { name: "Score", type: "double", value: { kind: "number", value: 2.5 } },
      { name: "Tags", type: "keyword_list", value: { kind: "chips", items: ["a", "b"] } },
      { name: "Urgent", type: "bool", value: { kind: "bool", value: true } },
    ]);
  });

  it("shows a value that breaks its type as it came, and never guesses a date without a type", () => {
    expect(typedAttributes({ DueAt: "soon", Score: "high" }, withTypes).map((a) => a.value)).toEqual([
      { kind: "json", value: "soon" },
      { kind: "json", value: "high" },
    ]);
    expect(typedAttributes({ When: "2026-12-07T10:00:00Z", N: 3, L: ["x"] }, null)).toEqual([
      { name: "L", type: null, value: { kind: "chips", items: ["x"] } },
      { name: "N", type: null, value: { kind: "number", value: 3 } },
      { name: "When", type: null, value: { kind: "text", value: "2026-12-07T10:00:00Z" } },
    ]);
    expect(typedAttributes([], null)).toEqual([]);
    expect(typedAttributes(null, null)).toEqual([]);
  });
});

describe("attribute filters in the list's query", () => {
  it("offers only the operators the server accepts for a type", () => {
    expect(operatorsFor("keyword")).toEqual(["=", "!="]);
    expect(operatorsFor("keyword_list")).toEqual(["="]);
    expect(operatorsFor("int")).toContain(">=");
    expect(operatorsFor("datetime")).toContain("<");
  });

  it("writes literals the way the server parses them, and refuses ones it would not", () => {
    expect(attributePredicate("Region", "keyword", "=", ' e"u\\ ')).toEqual({ ok: true, text: 'Region = "e\\"u\\\\"' });
    expect(attributePredicate("Priority", "int", ">", "3")).toEqual({ ok: true, text: "Priority > 3" });
    expect(attributePredicate("Priority", "int", ">", "3.5")).toEqual({ ok: false, error: "not_integer" });
    expect(attributePredicate("Score", "double", "<=", "2.5")).toEqual({ ok: true, text: "Score <= 2.5" });
    expect(attributePredicate("Score", "double", "<=", "x")).toEqual({ ok: false, error: "not_number" });
    expect(attributePredicate("Urgent", "bool", "=", "TRUE")).toEqual({ ok: true, text: "Urgent = true" });
    expect(attributePredicate("Urgent", "bool", "=", "yes")).toEqual({ ok: false, error: "not_bool" });
    expect(attributePredicate("DueAt", "datetime", ">", "2026-12-07T10:00:00Z")).toEqual({
      ok: true,
      text: 'DueAt > "2026-12-07T10:00:00Z"',
    });
    expect(attributePredicate("DueAt", "datetime", ">", "tomorrow")).toEqual({ ok: false, error: "not_datetime" });
    expect(attributePredicate("Region", "keyword", "=", "  ")).toEqual({ ok: false, error: "value_required" });
  });

  it("joins predicates with AND, replaces a plain search term, and removes one again", () => {
    expect(withPredicate("", 'Region = "eu"')).toEqual({ query: 'Region = "eu"', replacedTerm: false });
    expect(withPredicate("order-42", 'Region = "eu"')).toEqual({ query: 'Region = "eu"', replacedTerm: true });
    const two = withPredicate('Region = "eu"', "Priority > 3").query;
    expect(two).toBe('Region = "eu" AND Priority > 3');
    expect(splitPredicates('Region = "a AND b" AND Priority > 3 and Urgent = true')).toEqual([
      'Region = "a AND b"',
      "Priority > 3",
      "Urgent = true",
    ]);
    expect(withoutPredicate(two, 0)).toBe("Priority > 3");
    expect(isVisibilityQuery("order-42")).toBe(false);
    expect(isVisibilityQuery("NOT Urgent")).toBe(true);
    expect(isVisibilityQuery("Tags IN (a)")).toBe(true);
  });
});
