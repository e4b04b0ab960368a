import { afterEach, describe, expect, it, vi } from "vitest";
import { postAction } from "./post-action";

/** The browser side of a guarded action route: what it sends, and how each kind of answer is sorted. */
describe("postAction", () => {
  afterEach(() => vi.unstubAllGlobals());

  function answering(response: Response | Error) {
    const seen: Request[] = [];
    vi.stubGlobal("fetch", async (input: string, init: RequestInit) => {
      seen.push(new Request(`http://console.test${input}`, init));
      if (response instanceof Error) throw response;
      return response;
    });
    return seen;
  }

  it("posts the change as JSON for the namespace and keeps the server's body of an accepted change", async () => {
    const seen = answering(Response.json({ kind: "accepted", body: { recovered_workflow_task_count: 2 } }));
    expect(await postAction("/api/actions/workers", "billing", { op: "remove", workerId: "w1" })).toEqual({
      kind: "accepted",
      body: { recovered_workflow_task_count: 2 },
    });
    expect(seen[0]?.headers.get("x-namespace")).toBe("billing");
    expect(await seen[0]?.json()).toEqual({ op: "remove", workerId: "w1" });
  });

  it("says a refusal in the server's words, and a broken or unreachable answer as failed", async () => {
    answering(Response.json({ kind: "rejected", reason: "fleet_is_draining", message: "Draining." }));
    expect(await postAction("/api/actions/build-ids", "default", {})).toEqual({
      kind: "rejected",
      reason: "fleet_is_draining",
      message: "Draining.",
    });
    answering(new Response("<html>", { status: 502 }));
    expect(await postAction("/api/actions/build-ids", "default", {})).toEqual({
      kind: "failed",
      message: "malformed answer",
    });
    answering(Response.json({ kind: "refused", reason: "read_only" }, { status: 403 }));
    expect(await postAction("/api/actions/build-ids", "default", {})).toEqual({ kind: "failed", message: "read_only" });
    answering(new TypeError("Failed to fetch"));
    expect(await postAction("/api/actions/build-ids", "default", {})).toEqual({
      kind: "failed",
      message: "Failed to fetch",
    });
  });
});
