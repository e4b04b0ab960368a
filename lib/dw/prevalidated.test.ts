import { describe, expect, it } from "vitest";
import { DwMalformedResponseError, DwRunNotFoundError } from "./errors";
import { fixture, fixtureFetch } from "./fixtures/fixture-fetch";
import { PREVALIDATED_DECODERS } from "./prevalidated";
import { createDwClientWith } from "./transport";

const client = (reply: Parameters<typeof fixtureFetch>[0]) => {
  const served = fixtureFetch(reply);
  return {
    served,
    dw: createDwClientWith(PREVALIDATED_DECODERS, { baseUrl: "/api/dw", apiPrefix: "", fetch: served.fetch }),
  };
};

describe("the browser client over the validating proxy", () => {
  it("returns the proxy's already-validated body as it came, on the same paths as the validating client", async () => {
    const { served, dw } = client({ json: fixture("workflow-debug") });
    expect(await dw.debugRun("order 42", "01j")).toEqual(fixture("workflow-debug"));
    expect(served.requests[0]?.url).toBe("/api/dw/workflows/order%2042/runs/01j/debug");
  });

  it("still maps errors to their typed classes", async () => {
    const { dw } = client({ status: 404, json: fixture("error-404-run") });
    await expect(dw.describeRun("order-42", "nope")).rejects.toBeInstanceOf(DwRunNotFoundError);
  });

  it("turns the proxy's contract-break answer and non-JSON bodies into malformed-response errors", async () => {
    const relayed = client({
      status: 502,
      json: { reason: "malformed_response", message: "bad", issue_path: "$.events[3].timestamp" },
    });
    await expect(relayed.dw.getHistory("order-42", "01j")).rejects.toMatchObject({
      reason: "malformed_response",
      issuePath: "$.events[3].timestamp",
    });
    const html = client({ status: 200, text: "<html>" });
    await expect(html.dw.listWorkflows()).rejects.toBeInstanceOf(DwMalformedResponseError);
  });
});
