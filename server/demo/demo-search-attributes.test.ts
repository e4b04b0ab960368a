import { afterEach, beforeEach, expect, test } from "vitest";
import type { CpHarness } from "../http/control-plane/test-support";
import { cp, list, startCpHarness } from "../http/control-plane/test-support";
import { DEMO_SEARCH_ATTRIBUTES, orderSearchAttributes, registerDemoSearchAttributes } from "./demo-search-attributes";

/** The demo's attributes register once over HTTP, and its orders' values fit their types (a filter finds them). */

let h: CpHarness;
beforeEach(async () => {
  h = await startCpHarness();
});
afterEach(async () => h.close());

test("registers each attribute once, and an order's values are accepted and filterable by type", async () => {
  expect(await registerDemoSearchAttributes({ baseUrl: h.url })).toEqual(Object.keys(DEMO_SEARCH_ATTRIBUTES));
  expect(await registerDemoSearchAttributes({ baseUrl: h.url })).toEqual([]);
  expect((await cp(h.url, "/search-attributes")).body.custom_attributes).toEqual(DEMO_SEARCH_ATTRIBUTES);

  const now = Date.UTC(2026, 11, 7);
  for (const n of [3, 4]) {
    const order = { orderId: `o-${n}`, customer: "ada", amountCents: 1999 + n * 1250, scenario: "happy" as const };
    const r = await cp(h.url, "/workflows", {
      body: {
        workflow_id: `o-${n}`,
        workflow_type: "OrderWorkflow",
        search_attributes: orderSearchAttributes(order, n, now),
      },
    });
    expect(r.status).toBe(201);
  }
  const found = async (query: string) =>
    list((await cp(h.url, `/workflows?query=${encodeURIComponent(query)}`)).body.workflows).map((w) => w.workflow_id);
  expect(await found('Tags = "gift" AND Expedited = false')).toEqual(["o-4"]);
  expect(await found("Expedited AND OrderTotal > 50")).toEqual(["o-3"]);
  expect(await found('DueAt > "2026-12-08T12:00:00Z" AND Priority >= 4')).toEqual(["o-4"]);
});
