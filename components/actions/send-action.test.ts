import { describe, expect, it } from "vitest";
import { toActionAnswer, toActionContext, toActionError } from "@/components/actions/send-action";

const answer = {
  result: "accepted",
  httpStatus: 200,
  action: "cancel",
  workflowId: "wf",
  runId: "run",
  commandId: "cmd",
  outcome: "cancelled",
  rejectionReason: null,
  message: null,
};

describe("toActionAnswer", () => {
  it("keeps exactly the answer's fields", () => {
    expect(toActionAnswer({ ...answer, extra: "dropped" })).toEqual(answer);
  });

  it("refuses an error envelope, a wrong result and a non-integer status", () => {
    expect(toActionAnswer({ reason: "read_only", message: "no", httpStatus: 403 })).toBeNull();
    expect(toActionAnswer({ ...answer, result: "maybe" })).toBeNull();
    expect(toActionAnswer({ ...answer, httpStatus: 200.5 })).toBeNull();
    expect(toActionAnswer({ ...answer, runId: undefined })).toBeNull();
    expect(toActionAnswer([answer])).toBeNull();
  });
});

describe("toActionError", () => {
  it("accepts a status that is absent, null or an integer", () => {
    expect(toActionError({ reason: "read_only", message: "no" })).toEqual({ reason: "read_only", message: "no" });
    expect(toActionError({ reason: "server_unavailable", message: "down", httpStatus: null })).toEqual({
      reason: "server_unavailable",
      message: "down",
      httpStatus: null,
    });
    expect(toActionError({ reason: "forbidden", message: "no", httpStatus: 403, role: "worker" })).toEqual({
      reason: "forbidden",
      message: "no",
      httpStatus: 403,
    });
  });

  it("refuses bodies that are not an error envelope", () => {
    expect(toActionError({ reason: "x" })).toBeNull();
    expect(toActionError({ reason: "x", message: "y", httpStatus: "403" })).toBeNull();
    expect(toActionError("oops")).toBeNull();
  });
});

describe("toActionContext", () => {
  it("reads read-only mode and a known role", () => {
    expect(toActionContext({ readOnly: false, role: "admin" })).toEqual({
      readOnly: false,
      role: "admin",
      personRole: null,
    });
    expect(toActionContext({ readOnly: true, role: null, personRole: null })).toEqual({
      readOnly: true,
      role: null,
      personRole: null,
    });
  });

  it("reads the signed-in person's role", () => {
    expect(toActionContext({ readOnly: false, role: "operator", personRole: "viewer" })).toMatchObject({
      personRole: "viewer",
    });
    expect(() => toActionContext({ readOnly: false, role: "operator", personRole: "root" })).toThrow();
  });

  it("throws on an unknown role or a missing flag, so the widgets stay disabled", () => {
    expect(() => toActionContext({ readOnly: false, role: "root" })).toThrow();
    expect(() => toActionContext({ role: "admin" })).toThrow();
  });
});
