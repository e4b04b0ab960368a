/**
 * What a server render's seeded read (lib/server/pages/query-seeds.ts) resolves to when it failed. A
 * rejected promise in the page's flight data is logged by Next as a server error on every render
 * (a viewer whose token may not read metrics would log one per page), so the read resolves to this
 * marker and the browser turns it back into the query's error (components/providers/query-seeds.tsx).
 */
export const SEED_FAILED = { breakwaterSeed: "failed" } as const;

export function isSeedFailure(value: unknown): boolean {
  return typeof value === "object" && value !== null && (value as Record<string, unknown>).breakwaterSeed === "failed";
}
