/**
 * Node ids that hold a token now (the engine keeps left nodes at 0). A module of its own so the
 * instance page can use it without loading the instances list screen.
 */
export function activeNodeIds(nodes: Readonly<Record<string, number>> | null | undefined): string[] {
  return Object.entries(nodes ?? {})
    .filter(([, tokens]) => tokens > 0)
    .map(([node]) => node);
}
