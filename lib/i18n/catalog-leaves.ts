/** A next-intl catalog: nested objects whose leaves are ICU message strings. */
export type CatalogTree = { [key: string]: string | CatalogTree };

/** Every message of a catalog by its dot path (`run.exceptions.title`). */
export function catalogLeaves(tree: CatalogTree, prefix = ""): Map<string, string> {
  const out = new Map<string, string>();
  for (const [key, value] of Object.entries(tree)) {
    const path = prefix ? `${prefix}.${key}` : key;
    if (typeof value === "string") out.set(path, value);
    else for (const [p, v] of catalogLeaves(value, path)) out.set(p, v);
  }
  return out;
}

/** The `{name}` placeholders a message uses, sorted. */
export function placeholdersOf(message: string): string[] {
  return [...message.matchAll(/\{(\w+)/g)].map((m) => m[1] ?? "").sort();
}
