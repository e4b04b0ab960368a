import { describe, expect, it } from "vitest";
import { requestSignature } from "./signature";

/**
 * Known answers for the real server's `signature` driver. Each expected value was computed with
 * PHP 8.2's `hash_hmac('sha256', $body, $key)` — exactly what ConfiguredAuthProvider.php@83424d3
 * compares `X-Signature` with — e.g. `php -r 'echo hash_hmac("sha256", "", "key");'`.
 */
describe("requestSignature", () => {
  it.each([
    [
      "RFC 4231 case 2",
      "Jefe",
      "what do ya want for nothing?",
      "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843",
    ],
    ["a GET: the empty body", "key", "", "5d5d139563c95b5967b9bd9a8c9b233a9dedb45072794cd232dc1b74832607d0"],
    [
      "a cancel body as the console sends it",
      "bw-signature-key",
      JSON.stringify({ reason: "operator requested cancel", request_id: "req-1" }),
      "d7b000c564356630ea7264db1d1f604435afb6cb27ac7c9af2f1a9c25fc2b2e9",
    ],
    [
      "non-ASCII text is signed as its UTF-8 bytes",
      "bw-signature-key",
      JSON.stringify({ input: ["Grüße"], request_id: "req-2" }),
      "f4b4c7a0da50a179eb9f05d6084f3bc1930d8432f3d202237d753b83d7d95fb6",
    ],
  ])("%s", async (_name, key, body, expected) => {
    expect(await requestSignature(key, body)).toBe(expected);
  });

  it("depends on the key", async () => {
    expect(await requestSignature("other", "")).not.toBe(
      "5d5d139563c95b5967b9bd9a8c9b233a9dedb45072794cd232dc1b74832607d0",
    );
  });
});
