import type { NextRequest } from "next/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EmbeddedServer } from "@/server/http/test-support";
import { CONSOLE, consoleRequest, startActionServer } from "@/app/api/actions/_shared/route-test-support";

/** The registry handler against the real embedded server: guarded, validated, and the server's answers relayed. */

let server: EmbeddedServer;
let POST: (request: NextRequest) => Promise<Response>;

beforeAll(async () => {
  server = await startActionServer();
  ({ POST } = await import("@/app/api/actions/search-attributes/route"));
});

afterAll(async () => {
  await server.close();
});

function change(body: unknown, headers: Record<string, string> = { origin: CONSOLE }): NextRequest {
  return consoleRequest("/api/actions/search-attributes", body, headers);
}

describe("POST /api/actions/search-attributes", () => {
  it("refuses a cross-origin request, a body that is not JSON, and a name or type the server would refuse", async () => {
    expect(
      (await POST(change({ op: "create", name: "Region", type: "keyword" }, { origin: "http://evil.test" }))).status,
    ).toBe(403);
    expect((await POST(change("{"))).status).toBe(400);
    for (const body of [
      { op: "create", name: "1bad", type: "keyword" },
      { op: "create", name: "Region", type: "decimal" },
      { op: "rename", name: "Region" },
    ]) {
      const answer = await POST(change(body));
      expect(answer.status).toBe(400);
      expect(await answer.json()).toMatchObject({ reason: "invalid_request" });
    }
  });

  it("creates and deletes through the server, and relays its refusals in its words", async () => {
    const created = await POST(change({ op: "create", name: "Region", type: "keyword" }));
    expect(created.status).toBe(200);
    expect(await created.json()).toEqual({
      kind: "accepted",
      httpStatus: 201,
      body: { name: "Region", type: "keyword", outcome: "created" },
    });
    const duplicate = await POST(change({ op: "create", name: "Region", type: "int" }));
    expect(duplicate.status).toBe(409);
    expect(await duplicate.json()).toEqual({
      kind: "rejected",
      httpStatus: 409,
      reason: "attribute_already_exists",
      message: "A custom search attribute [Region] already exists in namespace [default].",
    });
    const reserved = await POST(change({ op: "create", name: "WorkflowId", type: "keyword" }));
    expect(await reserved.json()).toMatchObject({ kind: "rejected", reason: "name_reserved" });
    const deleted = await POST(change({ op: "delete", name: "Region" }));
    expect(await deleted.json()).toMatchObject({ kind: "accepted", body: { name: "Region", outcome: "deleted" } });
    const missing = await POST(change({ op: "delete", name: "Region" }));
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ kind: "rejected", reason: "attribute_not_found" });
  });
});
