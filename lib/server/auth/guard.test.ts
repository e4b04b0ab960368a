import { describe, expect, it } from "vitest";
import { actionContext, guardAction } from "@/lib/server/proxy/action-guard";
import { personCapability } from "@/lib/views/capabilities";
import type { Role } from "@/lib/views/capabilities";
import { parseConfig } from "@/lib/server/process/config";
import { forwardHeaders } from "./principal";
import type { Person } from "./principal";

/** The action guard with console auth on: the forwarded person's role decides, then their token's. */

const config = parseConfig({
  DW_OPERATOR_TOKEN: "op-token",
  DW_ADMIN_TOKEN: "admin-token",
  BREAKWATER_AUTH: "password",
  BREAKWATER_USERS_FILE: "/unused/users.json",
  BREAKWATER_SESSION_SECRET: "q".repeat(32),
});

// As proxy.ts forwards a request for an allowed host (x-breakwater-host is the validated one).
const sameOrigin = {
  host: "console:3000",
  "x-breakwater-host": "console:3000",
  origin: "http://console:3000",
  "sec-fetch-site": "same-origin",
};

function from(person: Person | null, extra: Record<string, string> = {}): Headers {
  return forwardHeaders(new Headers({ ...sameOrigin, ...extra }), person);
}

describe("guardAction with console auth", () => {
  it("refuses every action to a viewer, with the viewer's role in the message", () => {
    for (const need of ["operator", "admin"] as const) {
      const refused = guardAction(from({ user: "vic", role: "viewer" }), config, need);
      expect(refused).toMatchObject({ status: 403, reason: "role" });
      expect(refused?.message).toMatch(/your role \(viewer\) cannot/);
    }
  });

  it("lets an operator run run actions but not system passes", () => {
    expect(guardAction(from({ user: "ola", role: "operator" }), config, "operator")).toBeNull();
    expect(guardAction(from({ user: "ola", role: "operator" }), config, "admin")?.message).toMatch(
      /your role \(operator\) cannot run system passes/,
    );
  });

  it("lets an admin run both", () => {
    expect(guardAction(from({ user: "ada", role: "admin" }), config, "operator")).toBeNull();
    expect(guardAction(from({ user: "ada", role: "admin" }), config, "admin")).toBeNull();
  });

  it("refuses when nobody is signed in, even with a client-forged person header", () => {
    expect(guardAction(from(null), config, "operator")?.message).toMatch(/nobody is signed in/);
    const forged = forwardHeaders(
      new Headers({ ...sameOrigin, "x-breakwater-role": "admin", "x-breakwater-user": "mallory" }),
      null,
    );
    expect(guardAction(forged, config, "operator")).toMatchObject({ reason: "role" });
  });

  it("still checks origin and read-only mode first", () => {
    expect(
      guardAction(from({ user: "ada", role: "admin" }, { origin: "http://evil.test" }), config, "operator"),
    ).toMatchObject({ reason: "cross_origin" });
    expect(guardAction(from({ user: "ada", role: "admin" }), { ...config, readOnly: true }, "operator")).toMatchObject({
      reason: "read_only",
    });
  });

  it("gives admins the admin token and everyone else the operator token", () => {
    expect(config.personTokens.admin).toEqual({ token: "admin-token", source: "DW_ADMIN_TOKEN" });
    expect(config.personTokens.operator).toEqual({ token: "op-token", source: "DW_OPERATOR_TOKEN" });
    expect(config.personTokens.viewer).toEqual({ token: "op-token", source: "DW_OPERATOR_TOKEN" });
  });

  it("refuses an admin whose token is only an operator token for system passes", () => {
    const operatorTokenOnly = parseConfig({
      DW_OPERATOR_TOKEN: "op-token",
      BREAKWATER_AUTH: "password",
      BREAKWATER_USERS_FILE: "/unused/users.json",
      BREAKWATER_SESSION_SECRET: "q".repeat(32),
    });
    expect(guardAction(from({ user: "ada", role: "admin" }), operatorTokenOnly, "admin")?.message).toMatch(
      /token has the operator role/,
    );
  });
});

describe("actionContext with console auth", () => {
  const RANK: Record<Role, number> = { worker: 0, operator: 1, admin: 2 };
  const people: (Person | null)[] = [
    null,
    { user: "vic", role: "viewer" },
    { user: "ola", role: "operator" },
    { user: "ada", role: "admin" },
  ];

  it("carries the signed-in person's role and the role of the token sent for them", () => {
    expect(actionContext(config, from({ user: "vic", role: "viewer" }))).toEqual({
      readOnly: false,
      role: "operator",
      personRole: "viewer",
    });
    expect(actionContext(config, from({ user: "ada", role: "admin" }))).toEqual({
      readOnly: false,
      role: "admin",
      personRole: "admin",
    });
  });

  it("predicts the guard: a button is enabled exactly when the click would pass", () => {
    for (const person of people) {
      for (const need of ["operator", "admin"] as const) {
        const context = actionContext(config, from(person));
        const predicted =
          personCapability(context.personRole, need).enabled &&
          (context.role === null || RANK[context.role] >= RANK[need]);
        expect(predicted, `${person?.role ?? "nobody"} → ${need}`).toBe(
          guardAction(from(person), config, need) === null,
        );
      }
    }
  });
});
