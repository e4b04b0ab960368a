import * as z from "zod";
import type { DwCommandClient, NamespaceResult } from "@/lib/dw/commands";
import type { Namespace } from "@/lib/dw/schemas-fleet";

/**
 * The namespace admin actions as descriptors (like commands.ts for runs): the body the handler
 * parses, the server call it becomes, and the read-back that confirms it. The rules are the real
 * controller's (NamespaceController.php@11d35b7 `store` / `update`): a name of letters, digits, `.`,
 * `_`, `-` up to 128, a description up to 1000, retention 1–365 days.
 */

import { NAMESPACE_NAME, RETENTION_MAX, RETENTION_MIN } from "./namespace-rules";

export { NAMESPACE_NAME, RETENTION_MAX, RETENTION_MIN } from "./namespace-rules";

const name = z.string().min(1).max(128).regex(NAMESPACE_NAME);
const description = z.string().max(1000).nullable().optional();
const retentionDays = z.number().int().min(RETENTION_MIN).max(RETENTION_MAX).nullable().optional();

export const namespaceActionSchema = z.discriminatedUnion("op", [
  z.object({ op: z.literal("create"), name, description, retentionDays }).strict(),
  z.object({ op: z.literal("update"), name, description, retentionDays }).strict(),
  z.object({ op: z.literal("delete"), name }).strict(),
]);
export type NamespaceAction = z.infer<typeof namespaceActionSchema>;

/** What the console answers: the server's answer, and whether reading the namespaces back shows it. */
export type NamespaceActionAnswer =
  | {
      outcome: "accepted";
      httpStatus: number;
      confirmed: boolean;
      namespace: Namespace | null;
      deleted?: Record<string, number>;
    }
  | { outcome: "rejected"; httpStatus: number; reason: string; message: string | null };

function rejected(result: Extract<NamespaceResult<unknown>, { kind: "rejected" }>): NamespaceActionAnswer {
  return { outcome: "rejected", httpStatus: result.httpStatus, reason: result.reason, message: result.message };
}

/** Sends the action, then reads the list back: created/edited as asked, or gone. */
export async function runNamespaceAction(
  client: DwCommandClient,
  action: NamespaceAction,
): Promise<NamespaceActionAnswer> {
  const target = action.name.toLowerCase();
  if (action.op === "delete") {
    const result = await client.deleteNamespace(target);
    if (result.kind === "rejected") return rejected(result);
    const after = await client.listNamespaces();
    const confirmed = !after.namespaces.some((ns) => ns.name === target);
    return {
      outcome: "accepted",
      httpStatus: result.httpStatus,
      confirmed,
      namespace: null,
      deleted: result.body.deleted ?? {},
    };
  }
  const params = { description: action.description, retentionDays: action.retentionDays };
  const result =
    action.op === "create"
      ? await client.createNamespace({ name: target, ...params })
      : await client.updateNamespace(target, params);
  if (result.kind === "rejected") return rejected(result);
  const after = await client.listNamespaces();
  const row = after.namespaces.find((ns) => ns.name === target) ?? null;
  return {
    outcome: "accepted",
    httpStatus: result.httpStatus,
    confirmed: row !== null && matches(row, action),
    namespace: row,
  };
}

/** The read-back holds what was sent (fields not sent are the server's to keep). */
export function matches(row: Namespace, action: Exclude<NamespaceAction, { op: "delete" }>): boolean {
  if (
    action.retentionDays !== undefined &&
    action.retentionDays !== null &&
    row.retention_days !== action.retentionDays
  )
    return false;
  if (action.description !== undefined && action.description !== null && row.description !== action.description)
    return false;
  return true;
}
