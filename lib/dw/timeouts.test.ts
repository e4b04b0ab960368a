import { describe, expect, it } from "vitest";
import { realFixture } from "@/contracts/fixtures/load";
import { createDwClient, longPollLimitMs } from "./client";
import type { ClusterInfo } from "./schemas-fleet";
import { SCHEMA_DECODERS } from "./client";
import { hangingFetch } from "./fixtures/fixture-fetch";

function clusterInfo(version: "2026-04" | "2026-08"): ClusterInfo {
  const decoded = SCHEMA_DECODERS.clusterInfo(realFixture(version, "cluster-info"));
  if (!decoded.ok) throw new Error(decoded.message);
  return decoded.value;
}

describe("read limits", () => {
  it("a history long-poll follows the advertised long_poll_timeout plus 10 s", () => {
    expect(longPollLimitMs(clusterInfo("2026-04"))).toBe(40_000);
    expect(longPollLimitMs(clusterInfo("2026-08"))).toBe(70_000);
    expect(longPollLimitMs(null)).toBe(40_000);
    expect(longPollLimitMs({ worker_protocol: { server_capabilities: { long_poll_timeout: 0 } } })).toBe(10_000);
  });

  it("the export has its own timeout, independent of the per-request one", async () => {
    const client = createDwClient({
      baseUrl: "http://127.0.0.1:9",
      fetch: hangingFetch(),
      timeoutMs: 50,
      exportTimeoutMs: 120,
    });
    await expect(client.exportHistory("w", "r")).rejects.toThrow("no answer within 120 ms");
    await expect(client.describeRun("w", "r")).rejects.toThrow("no answer within 50 ms");
  });

  it("an explicit per-call timeout still wins (the browser passes the learned long-poll limit)", async () => {
    const client = createDwClient({ baseUrl: "http://127.0.0.1:9", fetch: hangingFetch(), timeoutMs: 50 });
    await expect(client.getHistory("w", "r", { waitNewEvent: true }, { timeoutMs: 80 })).rejects.toThrow(
      "no answer within 80 ms",
    );
  });
});
