import { describe, expect, it } from "vitest";
import {
  displayValue,
  draftOf,
  judgeVariableEdit,
  kindOf,
  MAX_VARIABLE_CHARS,
  parseDraft,
  parseEditRequest,
  sameValue,
  visibleText,
} from "./variable-edit";

describe("variable edit: types and drafts", () => {
  it("names the type the engine stores for each JSON value", () => {
    expect(kindOf("10")).toBe("string");
    expect(kindOf(10)).toBe("number");
    expect(kindOf(false)).toBe("boolean");
    expect(kindOf({ a: 1 })).toBe("json");
    expect(kindOf([1])).toBe("json");
    expect(kindOf(null)).toBe("json");
  });

  it("starts the input from the current value, offering a number stored as text as that number", () => {
    expect(draftOf("<b>hi</b>", "string")).toBe("<b>hi</b>");
    expect(draftOf(2.5, "number")).toBe("2.5");
    expect(draftOf(" 10 ", "number")).toBe("10");
    expect(draftOf("ten", "number")).toBe("");
    expect(draftOf("true", "boolean")).toBe("true");
    expect(draftOf(0, "boolean")).toBe("false");
    expect(draftOf({ a: [1] }, "json")).toBe('{\n  "a": [\n    1\n  ]\n}');
  });
});

describe("variable edit: validation before sending", () => {
  it("takes a number only in JSON's grammar, and no whole number the engine would get rounded", () => {
    expect(parseDraft("number", " 42 ")).toEqual({ ok: true, value: 42 });
    expect(parseDraft("number", "-0.5")).toEqual({ ok: true, value: -0.5 });
    expect(parseDraft("number", "1e3")).toEqual({ ok: true, value: 1000 });
    for (const bad of ["", "0x10", "1.", "NaN", "Infinity", "1,5", "12abc", "01"]) {
      expect(parseDraft("number", bad), bad).toEqual({ ok: false, problem: "number_syntax" });
    }
    expect(parseDraft("number", "1e400")).toEqual({ ok: false, problem: "number_syntax" });
    expect(parseDraft("number", "9007199254740993")).toEqual({ ok: false, problem: "number_unsafe" });
  });

  it("keeps a string exactly as typed, hostile markup included", () => {
    const hostile = '<img src=x onerror="alert(1)">\u202e';
    expect(parseDraft("string", hostile)).toEqual({ ok: true, value: hostile });
    expect(parseDraft("string", "")).toEqual({ ok: true, value: "" });
  });

  it("takes a boolean only as true or false", () => {
    expect(parseDraft("boolean", "true")).toEqual({ ok: true, value: true });
    expect(parseDraft("boolean", "yes")).toEqual({ ok: false, problem: "boolean" });
  });

  it("takes any JSON value, but no unsafe integer inside it, and bounds the size", () => {
    expect(parseDraft("json", '{"a":[1,null,{"b":true}]}')).toEqual({ ok: true, value: { a: [1, null, { b: true }] } });
    expect(parseDraft("json", "null")).toEqual({ ok: true, value: null });
    expect(parseDraft("json", "{a:1}")).toEqual({ ok: false, problem: "json_syntax" });
    expect(parseDraft("json", '{"a":[12345678901234567890]}')).toEqual({ ok: false, problem: "number_unsafe" });
    expect(parseDraft("string", "x".repeat(MAX_VARIABLE_CHARS + 1))).toEqual({ ok: false, problem: "too_large" });
  });

  it("checks a direct request to the route by the same rules, and refuses one that changes nothing", () => {
    expect(parseEditRequest({ name: "failTimes", value: 0, expected: 10 })).toEqual({
      ok: true,
      edit: { name: "failTimes", value: 0, expected: 10 },
    });
    expect(parseEditRequest({ name: "", value: 0, expected: 1 })).toEqual({ ok: false, problem: "name" });
    expect(parseEditRequest(null)).toEqual({ ok: false, problem: "name" });
    expect(parseEditRequest({ name: "a", expected: 1 })).toEqual({ ok: false, problem: "json_syntax" });
    expect(parseEditRequest({ name: "a", value: 1 })).toEqual({ ok: false, problem: "expected" });
    expect(parseEditRequest({ name: "a", value: { b: 1, c: 2 }, expected: { c: 2, b: 1 } })).toEqual({
      ok: false,
      problem: "unchanged",
    });
    expect(parseEditRequest({ name: "a", value: "x".repeat(MAX_VARIABLE_CHARS), expected: 1 })).toEqual({
      ok: false,
      problem: "too_large",
    });
  });
});

describe("variable edit: confirmed from the engine's read-back", () => {
  it("compares values as JSON, key order aside, types apart", () => {
    expect(sameValue({ a: [1, { b: null }] }, { a: [1, { b: null }] })).toBe(true);
    expect(sameValue({ a: 1, b: 2 }, { b: 2, a: 1 })).toBe(true);
    expect(sameValue("1", 1)).toBe(false);
    expect(sameValue([1, 2], [2, 1])).toBe(false);
    expect(sameValue({ a: undefined }, { b: undefined })).toBe(false);
    expect(sameValue([], {})).toBe(false);
    expect(sameValue(null, {})).toBe(false);
  });

  it("is confirmed only when the engine holds the value sent", () => {
    const vars = { failTimes: { name: "failTimes", value: 0 } };
    expect(judgeVariableEdit(0, vars, "failTimes")).toEqual({ phase: "confirmed" });
    expect(judgeVariableEdit(1, vars, "failTimes")).toEqual({ phase: "differs", now: 0 });
    expect(judgeVariableEdit(0, vars, "other")).toEqual({ phase: "missing" });
    expect(judgeVariableEdit(0, null, "failTimes")).toEqual({ phase: "missing" });
  });

  it("shows a value as compact JSON so a string and a number read apart", () => {
    expect(displayValue("10")).toBe('"10"');
    expect(displayValue(10)).toBe("10");
    expect(displayValue(undefined)).toBe("null");
  });

  it("escapes bidi overrides and invisible characters, so a value cannot reorder or hide what is read", () => {
    expect(displayValue("pay \u202eevil")).toBe('"pay \\u202eevil"');
    expect(displayValue({ "a\u200bb": "\u2066x\u2069\ufeff\u0085" })).toBe(
      '{"a\\u200bb":"\\u2066x\\u2069\\ufeff\\u0085"}',
    );
    expect(JSON.parse(displayValue("pay \u202eevil"))).toBe("pay \u202eevil");
    expect(visibleText("limit\u202e")).toBe("limit\\u202e");
  });
});
