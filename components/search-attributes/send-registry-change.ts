import type { SearchAttributeList } from "@/lib/dw/schemas-search-attributes";
import type { RegistryChange } from "@/lib/actions/search-attributes";
import { postAction } from "@/components/actions/post-action";

export type RegistryOutcome =
  | { kind: "confirmed"; op: RegistryChange["op"]; name: string; type: string | null }
  | { kind: "unconfirmed" }
  | { kind: "rejected"; reason: string; message: string }
  | { kind: "failed"; message: string };

/**
 * Sends a registry change through the console's guarded handler, then reads the registry back:
 * only a registry that lists (or no longer lists) the name confirms it.
 */
export async function sendRegistryChange(
  namespace: string,
  change: RegistryChange,
  readBack: () => Promise<SearchAttributeList>,
): Promise<RegistryOutcome> {
  const sent = await postAction("/api/actions/search-attributes", namespace, change);
  if (sent.kind !== "accepted") return sent;
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
