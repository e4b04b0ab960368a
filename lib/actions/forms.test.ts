import { describe, expect, it } from "vitest";
import type { FormValues } from "./forms";
import { formRequest, initialValues, RUN_ACTION_FORMS } from "./forms";
import { parseRunActionRequest } from "./commands";
import type { RunActionName } from "./contract";

/** The browser half of every run action's descriptor: its fields and the form → request mapping. */

const target = { workflowId: "order-42", runId: "run-1", requestId: "bw-12345678" };
const empty: FormValues = { reason: "", signalName: "", signalInput: "", newWorkflowId: "", cleanupTimeout: "" };
const ACTIONS = Object.keys(RUN_ACTION_FORMS) as RunActionName[];

describe("form descriptors", () => {
  it("list the fields each dialog shows", () => {
    const fields = Object.fromEntries(
      ACTIONS.map((action) => [action, RUN_ACTION_FORMS[action].fields.map((f) => f.name)]),
    );
    expect(fields).toEqual({
      repair: [],
      requestCancellation: ["cleanupTimeout", "reason"],
      cancel: ["reason"],
      terminate: ["reason"],
      archive: ["reason"],
      signal: ["signalName", "signalInput"],
      startAgain: ["newWorkflowId"],
    });
    // Terminate is the destructive one; Cancel is the ordinary way to stop a run and must not look like it.
    expect(ACTIONS.filter((action) => RUN_ACTION_FORMS[action].danger)).toEqual(["terminate"]);
  });

  it("start with a valid id suggestion for start again", () => {
    const values = initialValues("order:42 declined", 1_700_000_000_000);
    expect(values.newWorkflowId).toMatch(/^order:42-declined-again-/);
    expect(formRequest("startAgain", values, target).ok).toBe(true);
  });

  it("build requests the handler's schema accepts, trimmed", () => {
    const typed: FormValues = {
      reason: "  customer asked  ",
      signalName: " approve ",
      signalInput: ' ["yes", 42] ',
      newWorkflowId: " order-42-again ",
      cleanupTimeout: " 90 ",
    };
    for (const action of ACTIONS) {
      const result = formRequest(action, typed, target);
      expect(result.ok, action).toBe(true);
      if (result.ok)
        expect(parseRunActionRequest(result.request), action).toEqual({ ok: true, request: result.request });
    }
    expect(formRequest("cancel", typed, target)).toEqual({
      ok: true,
      request: { action: "cancel", ...target, reason: "customer asked" },
    });
    expect(formRequest("signal", typed, target)).toMatchObject({
      request: { signalName: "approve", input: ["yes", 42] },
    });
  });

  it("leave an empty archive reason out and send an empty signal input as no arguments", () => {
    expect(formRequest("archive", empty, target)).toEqual({ ok: true, request: { action: "archive", ...target } });
    expect(formRequest("signal", { ...empty, signalName: "go" }, target)).toMatchObject({ request: { input: [] } });
  });

  it("refuse each invalid field with the field and the problem", () => {
    expect(formRequest("cancel", { ...empty, reason: "  " }, target)).toEqual({
      ok: false,
      field: "reason",
      problem: "reasonRequired",
    });
    expect(formRequest("terminate", empty, target)).toMatchObject({ field: "reason", problem: "reasonRequired" });
    expect(formRequest("signal", empty, target)).toMatchObject({ field: "signalName", problem: "signalNameRequired" });
    expect(formRequest("signal", { ...empty, signalName: "go", signalInput: "[yes" }, target)).toMatchObject({
      field: "signalInput",
      problem: "signalInputJson",
    });
    expect(formRequest("signal", { ...empty, signalName: "go", signalInput: '{"a":1}' }, target)).toMatchObject({
      problem: "signalInputArray",
    });
    for (const id of ["", "bad id", "a/b", "<script>", "ü", "x".repeat(129)])
      expect(formRequest("startAgain", { ...empty, newWorkflowId: id }, target), id).toMatchObject({
        field: "newWorkflowId",
        problem: "workflowIdInvalid",
      });
  });

  it("pass hostile text through as data for the server to judge", () => {
    const hostile = "<img src=x onerror=alert(1)>\u202e'; --";
    expect(formRequest("cancel", { ...empty, reason: hostile }, target)).toMatchObject({
      request: { reason: hostile },
    });
    expect(
      formRequest("signal", { ...empty, signalName: hostile, signalInput: JSON.stringify([hostile]) }, target),
    ).toMatchObject({ request: { signalName: hostile, input: [hostile] } });
  });

  it("leave huge input to the handler's limits: the form maps, the schema refuses", () => {
    const huge = "x".repeat(100_000);
    const result = formRequest("cancel", { ...empty, reason: huge }, target);
    expect(result.ok).toBe(true);
    if (result.ok) expect(parseRunActionRequest(result.request).ok).toBe(false);
    expect(RUN_ACTION_FORMS.cancel.fields[0]?.maxLength).toBe(1000);
  });
});
