import type { SearchAttributeList } from "@/lib/dw/schemas-search-attributes";
import type { RegistryChange } from "@/lib/actions/search-attributes";
import { withBasePath } from "@/lib/http/base-path";

export type RegistryOutcome =
  | { kind: "confirmed"; op: RegistryChange["op"]; name: string; type: string | null }
  | { kind: "unconfirmed" }
  | { kind: "rejected"; reason: string; message: string }
  | { kind: "failed"; message: string };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Sends a registry change through the console's guarded handler, then reads the registry back:
 * only a registry that lists (or no longer lists) the name confirms it.
 */
export async function sendRegistryChange(
  namespace: string,
  change: RegistryChange,
  readBack: () => Promise<SearchAttributeList>,
): Promise<RegistryOutcome> {
  let json: unknown;
  try {
    const response = await fetch(withBasePath("/api/actions/search-attributes"), {
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
  try {
    const registry = await readBack();
    const type = registry.custom_attributes[change.name];
    const holds = change.op === "create" ? type === change.type : type === undefined;
    return holds
      ? { kind: "confirmed", op: change.op, name: change.name, type: type ?? null }
      : { kind: "unconfirmed" };
  } catch {
    return { kind: "unconfirmed" };
  }
}
