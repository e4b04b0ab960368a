import { describe, expect, it } from "vitest";
import { againWorkflowId, parseSignalInput } from "@/lib/actions/contract";

describe("parseSignalInput", () => {
  it("accepts an empty box as no arguments and a JSON array as the arguments", () => {
    expect(parseSignalInput("  ")).toEqual({ ok: true, value: [] });
    expect(parseSignalInput('["approved", 42, {"by": "ada"}]')).toEqual({
      ok: true,
      value: ["approved", 42, { by: "ada" }],
    });
  });

  it("names what is wrong: not JSON, or not an array", () => {
    expect(parseSignalInput("[approved")).toEqual({ ok: false, problem: "json" });
    expect(parseSignalInput('{"a": 1}')).toEqual({ ok: false, problem: "array" });
    expect(parseSignalInput('"approved"')).toEqual({ ok: false, problem: "array" });
  });
});

describe("againWorkflowId", () => {
  it("keeps the old id recognisable, valid and within 128 characters", () => {
    const id = againWorkflowId("order:42.declined", 1_700_000_000_000);
    expect(id).toMatch(/^order:42\.declined-again-[a-z0-9]+$/);
    const long = againWorkflowId("x".repeat(200), 1_700_000_000_000);
    expect(long.length).toBe(128);
    expect(againWorkflowId("a b/c", 1)).toMatch(/^a-b-c-again-/);
  });
});
