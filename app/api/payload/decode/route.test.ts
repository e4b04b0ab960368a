import { describe, expect, it } from "vitest";
import { POST } from "@/app/api/payload/decode/route";
import { VALIDATED_HOST } from "@/lib/server/edge/hosts";

function post(body: string, headers: Record<string, string> = {}): Promise<Response> {
  return POST(
    new Request("http://console.test/api/payload/decode", {
      method: "POST",
      body,
      headers: {
        "content-type": "application/json",
        origin: "http://console.test",
        "sec-fetch-site": "same-origin",
        [VALIDATED_HOST]: "console.test",
        ...headers,
      },
    }),
  );
}

describe("POST /api/payload/decode", () => {
  it("decodes Avro blobs on the server, longs as digits", async () => {
    // A real blob written by the TypeScript SDK: the string "sku-1" in an array.
    const response = await post(JSON.stringify({ payload: { arguments: "wwHioz3/VYAiNwwCCgpza3UtMQA=", n: 1 } }));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ tree: { arguments: { decoded: ["sku-1"] }, n: 1 } });
  });

  it("refuses another origin, malformed JSON, a wrong shape and a huge body with clear reasons", async () => {
    const cross = await post("{}", { origin: "http://evil.test", "sec-fetch-site": "cross-site" });
    expect(cross.status).toBe(403);
    expect(((await cross.json()) as { reason: string }).reason).toBe("cross_origin");
    expect((await post("{not json")).status).toBe(400);
    expect((await post(JSON.stringify({ other: 1 }))).status).toBe(422);
    const huge = await post(JSON.stringify({ payload: "x".repeat(1024 * 1024 + 1) }));
    expect(huge.status).toBe(413);
  });
});
