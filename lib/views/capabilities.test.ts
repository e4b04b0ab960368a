import { describe, expect, it } from "vitest";
import { messageText } from "./message-catalog";
import type { CapabilityContext, RunAction, RunDetailInput } from "./capabilities";
import {
  advertisesCooperativeCancellation,
  guardRefusal,
  personCapability,
  RUN_ACTIONS,
  runCapabilities,
} from "./capabilities";
import { PERSON_ROLES, personMay } from "@/lib/server/auth/roles";

const ALL_TRUE = { can_signal: true, can_cancel: true, can_terminate: true, can_repair: true, can_archive: true };
const openCurrent: RunDetailInput = {
  status: "waiting",
  is_terminal: false,
  is_current_run: true,
  actions: { ...ALL_TRUE, can_archive: false },
};
const failedCurrent: RunDetailInput = {
  status: "failed",
  is_terminal: true,
  is_current_run: true,
  actions: { ...ALL_TRUE, can_signal: false, can_cancel: false, can_terminate: false, can_repair: false },
};
const historical: RunDetailInput = {
  status: "completed",
  is_terminal: true,
  is_current_run: false,
  actions: { can_signal: false, can_cancel: false, can_terminate: false, can_repair: false, can_archive: true },
};

const operator = (liveness_state: string | null, extra: Partial<CapabilityContext> = {}): CapabilityContext => ({
  readOnly: false,
  role: "operator",
  liveness: liveness_state === null ? null : { liveness_state },
  ...extra,
});

function reasons(detail: RunDetailInput, context: CapabilityContext): Record<RunAction, string | null> {
  const capabilities = runCapabilities(detail, context);
  return Object.fromEntries(RUN_ACTIONS.map((action) => [action, capabilities[action].reason])) as Record<
    RunAction,
    string | null
  >;
}

describe("runCapabilities", () => {
  it("open current run that is stuck: everything but archive and start-again", () => {
    expect(reasons(openCurrent, operator("repair_needed"))).toEqual({
      repair: null,
      requestCancellation: "server_capabilities_unknown",
      cancel: null,
      terminate: null,
      signal: null,
      archive: "run_not_closed",
      startAgain: "run_open",
    });
  });

  it("repair follows liveness_state, not actions.can_repair", () => {
    // can_repair is true on any open current run; a healthy run still has nothing to repair.
    expect(runCapabilities(openCurrent, operator("activity_task_leased")).repair).toMatchObject({
      enabled: false,
      reason: "repair_not_needed",
    });
    expect(runCapabilities(openCurrent, operator(null)).repair.reason).toBe("liveness_unknown");
    expect(runCapabilities(openCurrent, operator("workflow_replay_blocked")).repair.enabled).toBe(true);
    expect(
      runCapabilities(openCurrent, {
        ...operator(null),
        liveness: { liveness_state: "workflow_replay_blocked", repair_attention: true },
      }).repair.reason,
    ).toBe("unsupported_history");
    expect(runCapabilities(openCurrent, operator("workflow_task_waiting_for_compatible_worker")).repair.reason).toBe(
      "waiting_for_compatible_worker",
    );
    expect(runCapabilities(openCurrent, operator("activity_running_without_task")).repair.reason).toBe(
      "repair_not_needed",
    );
  });

  it("a server flag can only take an action away", () => {
    const serverSaysNo = { ...openCurrent, actions: { ...ALL_TRUE, can_repair: false, can_signal: false } };
    const capabilities = runCapabilities(serverSaysNo, operator("repair_needed"));
    expect(capabilities.repair).toMatchObject({ enabled: false, reason: "server_disallowed" });
    expect(capabilities.signal.reason).toBe("server_disallowed");
    expect(capabilities.cancel.enabled).toBe(true);
  });

  it("closed run: archive and start again only", () => {
    expect(reasons(failedCurrent, operator("closed"))).toEqual({
      repair: "run_closed",
      requestCancellation: "run_closed",
      cancel: "run_closed",
      terminate: "run_closed",
      signal: "run_closed",
      archive: null,
      startAgain: null,
    });
    expect(
      runCapabilities({ ...failedCurrent, archived_at: "2026-11-30T15:00:00.000000Z" }, operator("closed")).archive
        .reason,
    ).toBe("run_archived");
  });

  it("historical run: commands go to the current run; starting again stays possible", () => {
    expect(reasons(historical, operator("closed"))).toEqual({
      repair: "selected_run_not_current",
      requestCancellation: "selected_run_not_current",
      cancel: "selected_run_not_current",
      terminate: "selected_run_not_current",
      signal: "selected_run_not_current",
      archive: "selected_run_not_current",
      startAgain: null,
    });
  });

  it("read-only mode disables every action, first", () => {
    const capabilities = runCapabilities(openCurrent, operator("repair_needed", { readOnly: true }));
    for (const action of RUN_ACTIONS)
      expect(capabilities[action]).toMatchObject({ enabled: false, reason: "read_only" });
    expect(messageText(capabilities.repair.message)).toBe("The console is in read-only mode.");
  });

  it("a worker token may not act; operator, admin and an unknown role may", () => {
    const worker = runCapabilities(openCurrent, operator("repair_needed", { role: "worker" }));
    expect(worker.cancel).toMatchObject({ enabled: false, reason: "role" });
    expect(messageText(worker.cancel.message)).toBe("The console's token has the worker role; this needs operator.");
    expect(runCapabilities(openCurrent, operator("repair_needed", { role: "admin" })).cancel.enabled).toBe(true);
    expect(runCapabilities(openCurrent, operator("repair_needed", { role: null })).cancel.enabled).toBe(true);
  });

  it("a signed-in viewer sees every action disabled with the role it needs; operator and admin act", () => {
    const viewer = runCapabilities(openCurrent, operator("repair_needed", { personRole: "viewer" }));
    for (const action of RUN_ACTIONS) expect(viewer[action]).toMatchObject({ enabled: false, reason: "person_role" });
    expect(messageText(viewer.cancel.message)).toBe("Requires the operator role; you are signed in as viewer.");
    expect(viewer.cancel.message?.values).toEqual({ personRole: "viewer", requiredRole: "operator" });
    for (const personRole of ["operator", "admin"] as const) {
      const capabilities = runCapabilities(openCurrent, operator("repair_needed", { personRole }));
      expect(capabilities.cancel.enabled).toBe(true);
      expect(capabilities.repair.enabled).toBe(true);
      // The person's role does not lift what the run's state takes away.
      expect(capabilities.archive.reason).toBe("run_not_closed");
    }
  });

  it("checks read-only before the person, and the person before the token", () => {
    const both = { personRole: "viewer", role: "worker" } as const;
    expect(runCapabilities(openCurrent, operator("repair_needed", both)).cancel.reason).toBe("person_role");
    expect(runCapabilities(openCurrent, operator("repair_needed", { ...both, readOnly: true })).cancel.reason).toBe(
      "read_only",
    );
    const operatorOnWorkerToken = runCapabilities(
      openCurrent,
      operator("repair_needed", { personRole: "operator", role: "worker" }),
    );
    expect(operatorOnWorkerToken.cancel.reason).toBe("role");
  });

  it("infers closed from the status when is_terminal is absent", () => {
    expect(runCapabilities({ status: "cancelled" }, operator("closed")).cancel.reason).toBe("run_closed");
    expect(runCapabilities({ status: "running" }, operator("repair_needed")).cancel.enabled).toBe(true);
  });

  it("every disabled capability carries a message with the catalog id", () => {
    for (const detail of [openCurrent, failedCurrent, historical]) {
      for (const capability of Object.values(runCapabilities(detail, operator("waiting_for_signal")))) {
        if (capability.enabled) expect(capability.message).toBeNull();
        else expect(capability.message?.id).toBe(`views.capability.${capability.reason}`);
      }
    }
  });
});

describe("personCapability", () => {
  it("with console auth off there is no person to refuse", () => {
    expect(personCapability(null, "admin")).toEqual({ enabled: true, reason: null, message: null });
    expect(personCapability(undefined, "operator").enabled).toBe(true);
  });

  it("run commands need an operator and the system passes an admin", () => {
    expect(personCapability("viewer", "operator")).toMatchObject({ enabled: false, reason: "person_role" });
    expect(personCapability("operator", "operator").enabled).toBe(true);
    expect(messageText(personCapability("operator", "admin").message)).toBe(
      "Requires the admin role; you are signed in as operator.",
    );
    expect(personCapability("admin", "admin").enabled).toBe(true);
    // A route a worker token may call still needs an operator from a person (the guard's rule).
    expect(personCapability("viewer", "worker").enabled).toBe(false);
  });

  it("agrees with the action guard's personMay for every role and need", () => {
    for (const role of PERSON_ROLES)
      for (const need of ["operator", "admin"] as const)
        expect(personCapability(role, need).enabled, `${role} → ${need}`).toBe(personMay(role, need));
  });
});

describe("request cancellation (issue 41)", () => {
  const advertised = operator(null, { cooperativeCancellation: true });

  it("is offered on an open current run only when the server advertises cooperative cancellation", () => {
    expect(runCapabilities(openCurrent, advertised).requestCancellation).toEqual({
      enabled: true,
      reason: null,
      message: null,
    });
    expect(
      runCapabilities(openCurrent, operator(null, { cooperativeCancellation: false })).requestCancellation,
    ).toMatchObject({
      enabled: false,
      reason: "cancellation_not_advertised",
    });
    expect(runCapabilities(openCurrent, operator(null)).requestCancellation.reason).toBe("server_capabilities_unknown");
  });

  it("a closed or historical run refuses it whatever the server advertises", () => {
    expect(runCapabilities(failedCurrent, advertised).requestCancellation.reason).toBe("run_closed");
    expect(runCapabilities(historical, advertised).requestCancellation.reason).toBe("selected_run_not_current");
  });

  it("read-only mode, a viewer and a worker token are refused with their reason", () => {
    expect(runCapabilities(openCurrent, { ...advertised, readOnly: true }).requestCancellation.reason).toBe(
      "read_only",
    );
    expect(runCapabilities(openCurrent, { ...advertised, personRole: "viewer" }).requestCancellation).toMatchObject({
      reason: "person_role",
      message: { values: { personRole: "viewer", requiredRole: "operator" } },
    });
    expect(runCapabilities(openCurrent, { ...advertised, role: "worker" }).requestCancellation.reason).toBe("role");
  });

  it("comes before Cancel and Terminate in the action order", () => {
    expect(RUN_ACTIONS.indexOf("requestCancellation")).toBeLessThan(RUN_ACTIONS.indexOf("cancel"));
    expect(RUN_ACTIONS.indexOf("cancel")).toBeLessThan(RUN_ACTIONS.indexOf("terminate"));
  });
});

describe("advertisesCooperativeCancellation", () => {
  it("reads worker_protocol.server_capabilities.cooperative_cancellation, true only when it is true", () => {
    const info = (flag: unknown) => ({
      worker_protocol: { version: "1.20", server_capabilities: { cooperative_cancellation: flag } },
    });
    expect(advertisesCooperativeCancellation(info(true))).toBe(true);
    expect(advertisesCooperativeCancellation(info(false))).toBe(false);
    expect(advertisesCooperativeCancellation(info("true"))).toBe(false);
    expect(advertisesCooperativeCancellation({ worker_protocol: { version: "1.19" } })).toBe(false);
    expect(advertisesCooperativeCancellation({})).toBe(false);
    expect(advertisesCooperativeCancellation(null)).toBeNull();
    expect(advertisesCooperativeCancellation(undefined)).toBeNull();
  });
});

describe("guardRefusal (screens without a run, in the action guard's order)", () => {
  const ready = { known: true, readOnly: false, personRole: null, role: null } as const;

  it("waits until the console said what it allows, then read-only, then the person, then the token", () => {
    expect(guardRefusal({ ...ready, known: false, readOnly: true }, "admin")).toEqual({ kind: "checking" });
    expect(guardRefusal({ ...ready, readOnly: true, personRole: "viewer" }, "admin")).toEqual({ kind: "readOnly" });
    expect(guardRefusal({ ...ready, personRole: "viewer", role: "worker" }, "operator")).toMatchObject({
      kind: "person",
      capability: { enabled: false },
    });
    expect(guardRefusal({ ...ready, personRole: "admin", role: "operator" }, "admin")).toEqual({
      kind: "token",
      role: "operator",
    });
  });

  it("lets an operator token act where an operator is needed, and refuses a worker token", () => {
    expect(guardRefusal({ ...ready, role: "operator" }, "operator")).toBeNull();
    expect(guardRefusal({ ...ready, role: "worker" }, "operator")).toEqual({ kind: "token", role: "worker" });
    expect(guardRefusal({ ...ready, role: "admin", personRole: "admin" }, "admin")).toBeNull();
  });
});
