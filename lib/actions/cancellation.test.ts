import { describe, expect, it } from "vitest";
import accepted from "@/lib/dw/fixtures/cancellation-accepted.json";
import duplicate from "@/lib/dw/fixtures/cancellation-duplicate.json";
import { cancellationReceiptSchema } from "@/lib/dw/schemas-cancellation";
import type { CancellationResult, DwCommandClient } from "@/lib/dw/commands";
import { formRequest, initialValues, parseCleanupTimeout } from "./forms";
import { sendRunCommand } from "./commands";
import { CLEANUP_TIMEOUT_DEFAULT } from "./limits";

/** Request cancellation (issue 41): the form's cleanup bound, the server call, the receipt → answer. */

const target = { workflowId: "order-42", runId: "01jrv0k8d3m6y0x7q9c2n4b5za", requestId: "bw-12345678" };

function clientAnswering(result: CancellationResult) {
  const calls: unknown[][] = [];
  const client = {
    requestWorkflowCancellation: async (...args: unknown[]) => {
      calls.push(args);
      return result;
    },
  } as unknown as DwCommandClient;
  return { client, calls };
}

describe("the cleanup bound", () => {
  it("starts at the server's default and takes whole seconds from 1 to 3600 only", () => {
    expect(initialValues("order-42", 0).cleanupTimeout).toBe(String(CLEANUP_TIMEOUT_DEFAULT));
    expect([" 1 ", "600", "3600"].map(parseCleanupTimeout)).toEqual([1, 600, 3600]);
    for (const bad of ["", "0", "3601", "1.5", "1e3", "-5", "sixty", "99999999"])
      expect(parseCleanupTimeout(bad), bad).toBeNull();
  });

  it("refuses a bad bound on its field before anything is sent; the reason is optional", () => {
    const values = { ...initialValues("order-42", 0), cleanupTimeout: "0" };
    expect(formRequest("requestCancellation", values, target)).toEqual({
      ok: false,
      field: "cleanupTimeout",
      problem: "cleanupTimeoutRange",
    });
    expect(formRequest("requestCancellation", { ...values, cleanupTimeout: "45" }, target)).toEqual({
      ok: true,
      request: { action: "requestCancellation", ...target, cleanupTimeoutSeconds: 45, reason: undefined },
    });
  });
});

describe("the server call and its answer", () => {
  it("the fixtures are receipts the decoder accepts", () => {
    expect(cancellationReceiptSchema.safeParse(accepted).success).toBe(true);
    expect(cancellationReceiptSchema.safeParse(duplicate).success).toBe(true);
    expect(cancellationReceiptSchema.safeParse({ ...accepted, accepted: false }).success).toBe(false);
    const noDeadline = {
      ...accepted,
      cancellation_request: { ...accepted.cancellation_request, cleanup_deadline_at: null },
    };
    expect(cancellationReceiptSchema.safeParse(noDeadline).success).toBe(false);
  });

  it("sends the selected run, the bound and the reason, and answers with the request id as the command id", async () => {
    const body = cancellationReceiptSchema.parse(accepted);
    const { client, calls } = clientAnswering({ kind: "accepted", httpStatus: 202, body });
    const request = {
      action: "requestCancellation" as const,
      ...target,
      cleanupTimeoutSeconds: 60,
      reason: "maintenance",
    };
    expect(await sendRunCommand(client, request)).toEqual({
      result: "accepted",
      httpStatus: 202,
      action: "requestCancellation",
      workflowId: "order-42",
      runId: target.runId,
      commandId: accepted.cancellation_request.request_id,
      outcome: "cancellation_requested",
      rejectionReason: null,
      message: null,
    });
    expect(calls).toEqual([["order-42", { runId: target.runId, reason: "maintenance", cleanupTimeoutSeconds: 60 }]]);
  });

  it("a second request reads as already requested, with the first request's id", async () => {
    const body = cancellationReceiptSchema.parse(duplicate);
    const { client } = clientAnswering({ kind: "accepted", httpStatus: 200, body });
    const request = { action: "requestCancellation" as const, ...target, cleanupTimeoutSeconds: 5 };
    expect(await sendRunCommand(client, request)).toMatchObject({
      result: "accepted",
      outcome: "cancellation_already_requested",
      commandId: duplicate.cancellation_request.request_id,
    });
  });

  it("relays the server's refusal with its reason and message", async () => {
    const { client } = clientAnswering({
      kind: "rejected",
      httpStatus: 422,
      body: {
        reason: "cooperative_cancellation_propagation_not_available",
        message: "Cancel or terminate it instead.",
      },
    });
    const request = { action: "requestCancellation" as const, ...target, cleanupTimeoutSeconds: 60 };
    expect(await sendRunCommand(client, request)).toEqual({
      result: "rejected",
      httpStatus: 422,
      action: "requestCancellation",
      workflowId: "order-42",
      runId: target.runId,
      commandId: null,
      outcome: null,
      rejectionReason: "cooperative_cancellation_propagation_not_available",
      message: "Cancel or terminate it instead.",
    });
  });
});
