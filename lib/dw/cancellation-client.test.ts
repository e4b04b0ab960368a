import { describe, expect, it } from "vitest";
import { createDwClient } from "./client";
import { fixture, fixtureFetch } from "./fixtures/fixture-fetch";
import type { Reply } from "./fixtures/fixture-fetch";

/** `requestWorkflowCancellation`: the path and body the SDK sends, the receipt decoded, refusals as answers. */

const BASE = "http://dw.test:8080";
const RUN = "01jrv0k8d3m6y0x7q9c2n4b5za";

function clientServing(reply: Reply) {
  const served = fixtureFetch(reply);
  const client = createDwClient({
    baseUrl: `${BASE}/`,
    token: "operator-token",
    namespace: "default",
    fetch: served.fetch,
  });
  return { client, requests: served.requests };
}

describe("requestWorkflowCancellation", () => {
  it("posts the bound and reason to the run's request-cancellation and decodes the 202 receipt", async () => {
    const { client, requests } = clientServing({ status: 202, json: fixture("cancellation-accepted") });
    const result = await client.requestWorkflowCancellation("order-42", {
      runId: RUN,
      reason: "maintenance",
      cleanupTimeoutSeconds: 60,
    });
    expect(requests[0]).toMatchObject({
      method: "POST",
      url: `${BASE}/api/workflows/order-42/runs/${RUN}/request-cancellation`,
      body: { reason: "maintenance", cleanup_timeout_seconds: 60 },
    });
    expect(result).toMatchObject({
      kind: "accepted",
      httpStatus: 202,
      body: { duplicate: false, cancellation_request: { cleanup_deadline_at: "2026-04-14T09:31:00.000000Z" } },
    });
  });

  it("sends an empty object when nothing is given, as the SDK does", async () => {
    const { client, requests } = clientServing({ status: 200, json: fixture("cancellation-duplicate") });
    const result = await client.requestWorkflowCancellation("order-42");
    expect(requests[0]).toMatchObject({ url: `${BASE}/api/workflows/order-42/request-cancellation`, body: {} });
    expect(result).toMatchObject({ kind: "accepted", httpStatus: 200, body: { duplicate: true } });
  });

  it("answers the server's 409 and 422 refusals with their reason and message", async () => {
    for (const [status, reason] of [
      [409, "run_not_active"],
      [422, "cooperative_cancellation_propagation_not_available"],
    ] as const) {
      const { client } = clientServing({ status, json: { message: "refused", reason, workflow_id: "order-42" } });
      expect(await client.requestWorkflowCancellation("order-42", { runId: RUN })).toEqual({
        kind: "rejected",
        httpStatus: status,
        body: { reason, message: "refused" },
      });
    }
  });

  it("throws for an unknown workflow and for a receipt that breaks the contract", async () => {
    const missing = clientServing({
      status: 404,
      json: { message: "Workflow not found.", reason: "instance_not_found" },
    });
    await expect(missing.client.requestWorkflowCancellation("nope")).rejects.toMatchObject({ httpStatus: 404 });
    const broken = clientServing({
      status: 202,
      json: { ...(fixture("cancellation-accepted") as object), accepted: "yes" },
    });
    await expect(broken.client.requestWorkflowCancellation("order-42")).rejects.toThrow(/accepted/);
  });
});
