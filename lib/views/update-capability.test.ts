import { describe, expect, it } from "vitest";
import { updateCapability } from "./capabilities";

const open = { status: "waiting", is_terminal: false, is_current_run: true };
const operator = { readOnly: false, role: "operator" as const, personRole: "operator" as const };

describe("updateCapability", () => {
  it("lets an operator send an update to the current open run", () => {
    expect(updateCapability(open, operator)).toEqual({ enabled: true, reason: null, message: null });
    expect(updateCapability(open, { ...operator, role: "admin", personRole: null }).enabled).toBe(true);
  });

  it("says why it is refused, in the guard's order: read-only, the person, the token, then the run", () => {
    expect(updateCapability(open, { ...operator, readOnly: true }).reason).toBe("read_only");
    const viewer = updateCapability(open, { ...operator, personRole: "viewer" });
    expect(viewer).toMatchObject({ enabled: false, reason: "person_role" });
    expect(viewer.message?.values).toMatchObject({ personRole: "viewer", requiredRole: "operator" });
    expect(updateCapability(open, { ...operator, role: "worker" }).reason).toBe("role");
    expect(updateCapability({ ...open, is_current_run: false }, operator).reason).toBe("selected_run_not_current");
    expect(updateCapability({ status: "completed", is_terminal: true }, operator).reason).toBe("run_closed");
    // Read-only wins over a closed run: the first reason the guard would give.
    expect(updateCapability({ status: "failed" }, { ...operator, readOnly: true }).reason).toBe("read_only");
  });
});
