/**
 * The real server's `signature` auth driver (durable-workflow/server
 * app/Auth/ConfiguredAuthProvider.php@83424d3 `authenticateSignature`): the `X-Signature` header
 * must equal `hash_hmac('sha256', $request->getContent(), $key)` — lowercase hex of HMAC-SHA256 over
 * the raw request body, compared with `hash_equals`. Nothing else is signed (no method, path, query
 * or time), so a GET, whose body is empty, carries the HMAC of the empty string. Web Crypto only.
 */

const encoder = new TextEncoder();

export async function requestSignature(key: string, body: string): Promise<string> {
  const cryptoKey = await crypto.subtle.importKey(
    "raw",
    encoder.encode(key),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", cryptoKey, encoder.encode(body)));
  let hex = "";
  for (const byte of mac) hex += byte.toString(16).padStart(2, "0");
  return hex;
}

export const SIGNATURE_HEADER = "X-Signature";
