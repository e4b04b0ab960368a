import { sameOriginProblem } from "@/lib/server/proxy/action-guard";
import { decodeForDisplay, displayJson } from "@/lib/dw/payload-display";

/** One history event's payload is small; anything far larger is not what the history pane sends. */
const MAX_BYTES = 1024 * 1024;

/**
 * `POST /api/payload/decode` `{ "payload": … }` → the payload with its codec blobs decoded for
 * display (lib/dw/payload-display.ts). Pure computation, no call to the Durable Workflow server; it
 * answers only the console's own pages (same origin), and a signed-in person when console auth is on
 * (proxy.ts guards every /api path).
 */
export async function POST(request: Request): Promise<Response> {
  const crossOrigin = sameOriginProblem(request.headers);
  if (crossOrigin) return problem(403, "cross_origin", crossOrigin);
  const declared = Number(request.headers.get("content-length") ?? 0);
  if (declared > MAX_BYTES) return problem(413, "too_large", `A payload of at most ${MAX_BYTES} bytes is decoded.`);
  const text = await request.text();
  if (text.length > MAX_BYTES) return problem(413, "too_large", `A payload of at most ${MAX_BYTES} bytes is decoded.`);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return problem(400, "malformed_json", "The body is not JSON.");
  }
  if (typeof body !== "object" || body === null || !("payload" in body))
    return problem(422, "invalid_body", 'The body must be { "payload": … }.');
  return new Response(displayJson({ tree: decodeForDisplay(body.payload) }), {
    headers: { "content-type": "application/json", "cache-control": "no-store" },
  });
}

function problem(status: number, reason: string, message: string): Response {
  return Response.json({ reason, message }, { status, headers: { "cache-control": "no-store" } });
}

export const dynamic = "force-dynamic";
