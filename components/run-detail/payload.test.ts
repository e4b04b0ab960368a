import { describe, expect, it } from "vitest";
import { decodePayloadTree, prettyJson } from "@/components/run-detail/payload";

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
