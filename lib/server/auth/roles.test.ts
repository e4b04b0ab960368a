import { describe, expect, it } from "vitest";
import { parseRoleGroups, personMay, roleForGroups } from "./roles";
import { personRefusal } from "./principal";

describe("role rules", () => {
  it("lets each role do exactly its share", () => {
    expect(personMay("viewer", "operator")).toBe(false);
    expect(personMay("viewer", "admin")).toBe(false);
    expect(personMay("operator", "operator")).toBe(true);
    expect(personMay("operator", "admin")).toBe(false);
    expect(personMay("admin", "operator")).toBe(true);
    expect(personMay("admin", "admin")).toBe(true);
  });

  it("words a refusal with the person's role", () => {
    expect(personRefusal({ user: "vic", role: "viewer" }, "operator")).toBe(
      "Refused: your role (viewer) cannot run actions; this needs operator.",
    );
    expect(personRefusal({ user: "ola", role: "operator" }, "admin")).toBe(
      "Refused: your role (operator) cannot run system passes; this needs admin.",
    );
    expect(personRefusal({ user: "ada", role: "admin" }, "admin")).toBeNull();
    expect(personRefusal(null, "operator")).toMatch(/nobody is signed in/);
  });

  it("parses a role-group map and rejects malformed entries", () => {
    expect(parseRoleGroups("admin:ops-admins, operator:ops ,viewer:*")).toEqual({
      rules: [
        { role: "admin", group: "ops-admins" },
        { role: "operator", group: "ops" },
        { role: "viewer", group: "*" },
      ],
    });
    expect(parseRoleGroups("root:ops")).toHaveProperty("problem");
    expect(parseRoleGroups("admin")).toHaveProperty("problem");
    expect(parseRoleGroups("admin:")).toHaveProperty("problem");
  });

  it("gives the highest role any group maps to, and none without a match", () => {
    const parsed = parseRoleGroups("admin:ops-admins,operator:ops,viewer:*");
    if (!("rules" in parsed)) throw new Error(parsed.problem);
    expect(roleForGroups(["ops", "ops-admins"], parsed.rules)).toBe("admin");
    expect(roleForGroups(["ops"], parsed.rules)).toBe("operator");
    expect(roleForGroups([], parsed.rules)).toBe("viewer");
    const strict = parseRoleGroups("operator:ops");
    if (!("rules" in strict)) throw new Error(strict.problem);
    expect(roleForGroups(["marketing"], strict.rules)).toBeNull();
  });
});
