import type { Namespace } from "@/lib/dw/schemas-fleet";
import type { RetentionPassReport, RetentionStatus } from "@/lib/dw/schemas-namespaces";
import { NAMESPACE_NAME, RETENTION_MAX, RETENTION_MIN } from "@/lib/actions/namespace-rules";

/**
 * The Namespaces screen and the System page's retention panel, as pure functions: the rows the table
 * shows, the form's checks (the real controller's rules, so a refusal is said before sending), what
 * may be deleted, and whether a retention pass is confirmed by the status read after it.
 */

export interface NamespaceRow {
  name: string;
  description: string | null;
  retentionDays: number | null;
  status: string | null;
  /** `null`: no external payload storage; else the driver and whether the policy is enabled. */
  storage: { driver: string; enabled: boolean; thresholdBytes: number | null } | null;
  current: boolean;
}

function storageOf(policy: unknown): NamespaceRow["storage"] {
  if (policy === null || typeof policy !== "object") return null;
  const p = policy as Record<string, unknown>;
  if (typeof p.driver !== "string" || p.driver === "") return null;
  return {
    driver: p.driver,
    enabled: p.enabled !== false,
    thresholdBytes: typeof p.threshold_bytes === "number" ? p.threshold_bytes : null,
  };
}

/** The server's namespaces by name, the page's own marked. */
export function namespaceRows(namespaces: readonly Namespace[], current: string): NamespaceRow[] {
  return [...namespaces]
    .sort((a, b) => a.name.localeCompare(b.name))
    .map((ns) => ({
      name: ns.name,
      description: ns.description ?? null,
      retentionDays: ns.retention_days ?? null,
      status: ns.status ?? null,
      storage: storageOf(ns.external_payload_storage),
      current: ns.name === current,
    }));
}

export type FormError = "nameRequired" | "nameTooLong" | "nameInvalid" | "descriptionTooLong" | "retentionRange";

export interface NamespaceFormInput {
  name: string;
  description: string;
  retentionDays: string;
}

export type NamespaceFormResult =
  | { ok: true; value: { name: string; description: string | null; retentionDays: number | null } }
  | { ok: false; errors: Partial<Record<keyof NamespaceFormInput, FormError>> };

/** The form as the controller validates it: empty description and retention are not sent. */
export function checkNamespaceForm(input: NamespaceFormInput): NamespaceFormResult {
  const errors: Partial<Record<keyof NamespaceFormInput, FormError>> = {};
  const name = input.name.trim();
  if (name === "") errors.name = "nameRequired";
  else if (name.length > 128) errors.name = "nameTooLong";
  else if (!NAMESPACE_NAME.test(name)) errors.name = "nameInvalid";
  const description = input.description.trim();
  if (description.length > 1000) errors.description = "descriptionTooLong";
  const raw = input.retentionDays.trim();
  const days = raw === "" ? null : Number(raw);
  if (days !== null && (!/^\d+$/.test(raw) || days < RETENTION_MIN || days > RETENTION_MAX))
    errors.retentionDays = "retentionRange";
  if (Object.keys(errors).length > 0) return { ok: false, errors };
  return {
    ok: true,
    value: { name: name.toLowerCase(), description: description === "" ? null : description, retentionDays: days },
  };
}

export type DeleteBlock = "current" | null;

/**
 * The namespace the page shows is not deleted from itself: the console would be left on a page whose
 * namespace is gone (switch first). Runs are no block: the server deletes them with the namespace.
 */
export function deleteBlock(row: NamespaceRow): DeleteBlock {
  return row.current ? "current" : null;
}

/** A typed confirmation: deleting runs with their namespace needs the name typed back exactly. */
export function deleteConfirmed(row: NamespaceRow, typed: string): boolean {
  return typed.trim().toLowerCase() === row.name;
}

/** The `deleted` counts of the answer, largest first, as `[table, count]`. */
export function deletedCounts(deleted: Record<string, number> | undefined): [string, number][] {
  return Object.entries(deleted ?? {})
    .filter(([, n]) => n > 0)
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
}

export interface RetentionPassCheck {
  prunedRunIds: string[];
  /** Pruned run ids the status read after the pass still lists as expired. */
  stillExpired: string[];
  confirmed: boolean;
}

/** A pass is confirmed when no run it reports pruned is still expired when status is read again. */
export function checkRetentionPass(report: RetentionPassReport, after: RetentionStatus): RetentionPassCheck {
  const pruned = report.results.filter((r) => r.outcome === "pruned" && r.run_id).map((r) => r.run_id as string);
  const still = new Set(after.expired_run_ids);
  const stillExpired = pruned.filter((id) => still.has(id));
  return { prunedRunIds: pruned, stillExpired, confirmed: stillExpired.length === 0 };
}
