import type { NamespaceAction, NamespaceActionAnswer } from "@/lib/actions/namespace-actions";
import { withBasePath } from "@/lib/http/base-path";

/** What the screen shows after an action: the console's answer, or why there is none. */
export type NamespaceOutcome =
  | { kind: "answered"; op: NamespaceAction["op"]; name: string; answer: NamespaceActionAnswer }
  | { kind: "refused"; reason: string; message: string };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Sends one namespace action through the guarded handler (which reads the list back to confirm). */
export async function sendNamespaceAction(namespace: string, action: NamespaceAction): Promise<NamespaceOutcome> {
  let json: unknown;
  try {
    const response = await fetch(withBasePath("/api/actions/namespaces"), {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json", "x-namespace": namespace },
      body: JSON.stringify(action),
    });
    json = await response.json().catch(() => null);
  } catch (error) {
    return {
      kind: "refused",
      reason: "console_unreachable",
      message: error instanceof Error ? error.message : String(error),
    };
  }
  if (isRecord(json) && (json.outcome === "accepted" || json.outcome === "rejected"))
    return { kind: "answered", op: action.op, name: action.name.toLowerCase(), answer: json as NamespaceActionAnswer };
  const reason = isRecord(json) && typeof json.reason === "string" ? json.reason : "malformed_response";
  const message = isRecord(json) && typeof json.message === "string" ? json.message : "";
  return { kind: "refused", reason, message };
}
