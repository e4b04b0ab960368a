import { describe, expect, it } from "vitest";
import { variableRows } from "./variables-view";

describe("variableRows", () => {
  it("lists variables by name, values as JSON, transient ones said so", () => {
    expect(
      variableRows({
        failTimes: { name: "failTimes", isTransient: false, value: 3 },
        applicant: { name: "applicant", isTransient: null, value: { id: "a-1" } },
        token: { name: "token", isTransient: true, value: "x" },
      }),
    ).toEqual([
      { name: "applicant", value: '{"id":"a-1"}', raw: { id: "a-1" }, transient: false },
      { name: "failTimes", value: "3", raw: 3, transient: false },
      { name: "token", value: '"x"', raw: "x", transient: true },
    ]);
  });

  it("is empty without variables", () => {
    expect(variableRows(null)).toEqual([]);
  });
});
