import { describe, expect, it } from "vitest";
import { statusTone } from "@/components/kikwiflow/status-tone";

describe("statusTone", () => {
  it("colours Kikwiflow's statuses like their Durable Workflow counterparts, unknown ones as themselves", () => {
    expect(statusTone("ACTIVE")).toBe("running");
    expect(statusTone("ERROR")).toBe("failed");
    expect(statusTone("RESOLVED")).toBe("completed");
    expect(statusTone("SUSPENDED")).toBe("suspended");
  });
});
