import { withBasePath } from "@/lib/http/base-path";

/** What one of the console's guarded action routes answered, before the change is read back. */
export type PostedAction =
  | { kind: "accepted"; body: Record<string, unknown> }
  | { kind: "rejected"; reason: string; message: string }
  | { kind: "failed"; message: string };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Posts a change to a guarded action route (`/api/actions/…`, under the sub-path) for `namespace`
 * and sorts its answer: accepted (with the server's body), refused in the server's words, or failed.
 * The caller confirms an accepted change by reading it back.
 */
export async function postAction(route: string, namespace: string, change: unknown): Promise<PostedAction> {
  let json: unknown;
  try {
    const response = await fetch(withBasePath(route), {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json", "x-namespace": namespace },
      body: JSON.stringify(change),
    });
    json = await response.json().catch(() => null);
  } catch (error) {
    return { kind: "failed", message: error instanceof Error ? error.message : String(error) };
  }
  if (!isRecord(json)) return { kind: "failed", message: "malformed answer" };
  if (json.kind === "rejected")
    return { kind: "rejected", reason: String(json.reason), message: String(json.message ?? "") };
  if (json.kind !== "accepted") return { kind: "failed", message: String(json.message ?? json.reason ?? "") };
  return { kind: "accepted", body: isRecord(json.body) ? json.body : {} };
}
