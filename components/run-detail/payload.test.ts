import { describe, expect, it } from "vitest";
import { payloadEntries, prettyJson } from "@/components/run-detail/payload";
import { decodeForDisplay } from "@/lib/dw/payload-display";

// The tree the decode route answers (lib/dw/payload-display.ts, tested there and in its route test).
const decodePayloadTree = async (payload: unknown) => decodeForDisplay(payload);

describe("decodePayloadTree", () => {
  it("decodes Avro blobs nested in a history payload and leaves other strings alone", async () => {
    // A real blob written by the TypeScript SDK: the string "sku-1" in an array.
    const tree = await decodePayloadTree({
      arguments: "wwHioz3/VYAiNwwCCgpza3UtMQA=",
      activity_type: "ReserveStock",
      nested: { result: "wwHioz3/VYAiNw4EEHJlc2VydmVkAgEOYXR0ZW1wdAQGAA==" },
    });
    expect(tree).toEqual({
      arguments: { decoded: ["sku-1"] },
      activity_type: "ReserveStock",
      nested: { result: { decoded: { reserved: true, attempt: 3 } } },
    });
  });

  it("keeps a blob that does not decode verbatim", async () => {
    expect(await decodePayloadTree({ id: "01M8Q2FBQ9BP7JQ9V4HH7839F4" })).toEqual({ id: "01M8Q2FBQ9BP7JQ9V4HH7839F4" });
  });

  it("renders bigints as digits", () => {
    expect(prettyJson({ n: 2n ** 64n })).toContain("18446744073709551616");
  });
});

describe("payloadEntries", () => {
  it("lists each key with its decoded value, marking the ones that were codec blobs", async () => {
    // ActivityScheduled as the embedded server writes it: Avro `arguments` beside plain keys.
    const tree = await decodePayloadTree({
      activity_type: "ReserveStock",
      sequence: 1,
      arguments: "wwHioz3/VYAiNwwCCgpza3UtMQA=",
      activity: { result: "wwHioz3/VYAiNw4EEHJlc2VydmVkAgEOYXR0ZW1wdAQGAA==" },
      retry_policy: null,
    });
    const entries = payloadEntries(tree);
    expect(entries.map((entry) => [entry.key, entry.decoded, entry.block])).toEqual([
      ["activity_type", false, false],
      ["sequence", false, false],
      ["arguments", true, true],
      ["activity", true, true],
      ["retry_policy", false, false],
    ]);
    expect(entries[0]!.text).toBe("ReserveStock");
    expect(entries[1]!.text).toBe("1");
    expect(JSON.parse(entries[2]!.text)).toEqual(["sku-1"]);
    expect(JSON.parse(entries[3]!.text)).toEqual({ result: { reserved: true, attempt: 3 } });
    expect(entries[4]!.text).toBe("null");
  });

  it("shows a payload that is not an object as one value", () => {
    expect(payloadEntries([])).toEqual([{ key: "value", text: "[]", decoded: false, block: true }]);
  });
});
