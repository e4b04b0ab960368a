import type { NextRequest } from "next/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EmbeddedServer } from "@/server/http/test-support";
import { CONSOLE, consoleRequest, startActionServer } from "@/app/api/actions/_shared/route-test-support";

/** The namespace action handler against the real embedded server: each change is read back. */

let server: EmbeddedServer;
let POST: (request: NextRequest) => Promise<Response>;

beforeAll(async () => {
  server = await startActionServer({ DW_OPERATOR_TOKEN: "op-token" });
  ({ POST } = await import("@/app/api/actions/namespaces/route"));
});

afterAll(async () => {
  await server.close();
});

function action(body: unknown, headers: Record<string, string> = {}): NextRequest {
  return consoleRequest("/api/actions/namespaces", body, { origin: CONSOLE, ...headers });
}

describe("POST /api/actions/namespaces", () => {
  it("creates, edits and deletes, each confirmed by the namespace list read back", async () => {
    const created = await POST(action({ op: "create", name: "Billing", description: "Invoices", retentionDays: 14 }));
    expect(created.status).toBe(201);
    expect(await created.json()).toMatchObject({
      outcome: "accepted",
      confirmed: true,
      namespace: { name: "billing", description: "Invoices", retention_days: 14 },
    });

    const edited = await POST(action({ op: "update", name: "billing", retentionDays: 7 }));
    expect(await edited.json()).toMatchObject({
      outcome: "accepted",
      confirmed: true,
      namespace: { retention_days: 7 },
    });

    const dup = await POST(action({ op: "create", name: "billing" }));
    expect(dup.status).toBe(409);
    expect(await dup.json()).toMatchObject({ outcome: "rejected", reason: "namespace_already_exists" });

    const deleted = await POST(action({ op: "delete", name: "billing" }));
    expect(deleted.status).toBe(200);
    expect(await deleted.json()).toMatchObject({ outcome: "accepted", confirmed: true, deleted: {} });

    const gone = await POST(action({ op: "delete", name: "billing" }));
    expect(gone.status).toBe(404);
    expect(await gone.json()).toMatchObject({ outcome: "rejected", reason: "namespace_not_found" });
  });

  it("refuses bad input before the server, and cross-origin requests", async () => {
    const bad = await POST(action({ op: "create", name: "no spaces" }));
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ reason: "invalid_request" });
    const range = await POST(action({ op: "update", name: "default", retentionDays: 400 }));
    expect(range.status).toBe(400);
    expect((await POST(action({ op: "create", name: "x" }, { origin: "http://evil.test" }))).status).toBe(403);
  });
});
