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

  it("replaces an earlier start-again suffix instead of chaining another", () => {
    const first = againWorkflowId("order-42", 1_700_000_000_000);
    const second = againWorkflowId(first, 1_700_000_100_000);
    expect(second).toBe(`order-42-again-${(1_700_000_100_000).toString(36)}`);
    expect(againWorkflowId(`${first}-again-zz`, 5)).toBe("order-42-again-5");
    // A name that merely contains the word keeps it.
    expect(againWorkflowId("try-again-later-x1", 5)).toBe("try-again-later-x1-again-5");
  });
});
