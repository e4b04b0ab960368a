import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FakeClock } from "../clock";
import { decodePayload } from "../codec/codec";
import { startTestServer, TEST_OPERATOR_TOKEN } from "../test-support/test-server";
import type { TestServer } from "../test-support/test-server";
import { seedDemoSchedules } from "./demo-schedules";

let server: TestServer;
let clock: FakeClock;

beforeEach(async () => {
  clock = new FakeClock(Date.parse("2026-01-15T10:00:30.000Z"));
  server = await startTestServer(clock);
});
afterEach(async () => server.close());

describe("demo schedules", () => {
  it("seeds a healthy minutely schedule, a failing one and a paused one with a note, once", async () => {
    const opts = { baseUrl: server.baseUrl, token: TEST_OPERATOR_TOKEN };
    expect(await seedDemoSchedules(opts)).toEqual(["order-digest", "card-retry-sweep", "nightly-restock"]);
    expect(await seedDemoSchedules(opts)).toEqual([]);
    const rows = server.db
      .prepare("SELECT schedule_id, status, note FROM workflow_schedules ORDER BY schedule_id")
      .all() as { schedule_id: string; status: string; note: string }[];
    expect(rows.map((r) => [r.schedule_id, r.status])).toEqual([
      ["card-retry-sweep", "active"],
      ["nightly-restock", "paused"],
      ["order-digest", "active"],
    ]);
    expect(rows[1]!.note).toBe("Paused while the warehouse moves to the new stock system");

    // At 10:02 both active schedules are due (every minute; every two minutes), the paused one is not.
    clock.advance(90_000);
    const fired = server.engine.scheduleTick();
    expect(fired.map((f) => f.schedule_id).sort()).toEqual(["card-retry-sweep", "order-digest"]);
    const sweep = fired.find((f) => f.schedule_id === "card-retry-sweep")!;
    const run = server.db
      .prepare(
        "SELECT r.workflow_type, r.arguments, r.payload_codec FROM workflow_runs r JOIN workflow_instances i ON i.current_run_id = r.id WHERE i.id = ?",
      )
      .get(sweep.instance_id) as { workflow_type: string; arguments: string; payload_codec: string };
    expect(run.workflow_type).toBe("OrderWorkflow");
    expect(decodePayload({ codec: run.payload_codec, blob: run.arguments })).toEqual([
      { orderId: "retry-sweep", customer: "grace", amountCents: 4999, scenario: "declined" },
    ]);
  });
});
