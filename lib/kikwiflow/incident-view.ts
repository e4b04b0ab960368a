import type { Incident } from "./schemas";

/** Incidents as an operator reads them (zod-free, so components may use it). Pure. */

/**
 * Simple class name of the root cause: the last `Caused by:` line of the stack trace, else its first
 * line (`com.acme.PaymentDeclinedException: card refused` → `PaymentDeclinedException`).
 */
export function rootCauseClass(stackTrace: string | null | undefined): string | null {
  if (!stackTrace) return null;
  const lines = stackTrace.split(/\r?\n/).map((l) => l.trim());
  const causes = lines.filter((l) => l.startsWith("Caused by:"));
  const head = causes.length > 0 ? causes[causes.length - 1]!.slice("Caused by:".length).trim() : lines[0]!;
  // Throwable.toString(): a fully qualified class, then ": message" or nothing.
  const qualified = /^([\w$]+(?:\.[\w$]+)+)(?::|$)/.exec(head)?.[1];
  if (!qualified) return null;
  return qualified.slice(qualified.lastIndexOf(".") + 1) || null;
}

/**
 * Open incidents first (the ones to act on), then newest first; ISO-8601 instants from one engine
 * compare as strings, and an incident without a time goes last in its half.
 */
export function orderIncidents<T extends { incident: Incident }>(rows: readonly T[]): T[] {
  const rank = (row: T) => (row.incident.status === "OPEN" ? 0 : 1);
  return [...rows].sort(
    (a, b) => rank(a) - rank(b) || (b.incident.createdAt ?? "").localeCompare(a.incident.createdAt ?? ""),
  );
}
