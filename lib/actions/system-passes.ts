import * as z from "zod";
import type { DwCommandClient } from "@/lib/dw/commands";
import type { PassResult } from "@/lib/dw/transport";
import type { ActivityTimeoutPassReport, RepairPassReport } from "@/lib/dw/schemas-system";
import type { RetentionPassReport } from "@/lib/dw/schemas-namespaces";

/**
 * The admin maintenance passes (server-api §2.9) as descriptors of the same shape as the run
 * actions (commands.ts): the body schema the handler parses, and the server call it becomes.
 */

export const SYSTEM_PASSES = ["repair-pass", "activity-timeout-pass", "retention-pass"] as const;
export type SystemPass = (typeof SYSTEM_PASSES)[number];

export function isSystemPass(value: string): value is SystemPass {
  return (SYSTEM_PASSES as readonly string[]).includes(value);
}

const ids = z.array(z.string().min(1).max(128)).max(100);

/** The passes accept the same optional id lists; each sends only its own (retention: run ids). */
export const systemPassBodySchema = z.object({ runIds: ids.optional(), executionIds: ids.optional() }).strict();
export type SystemPassBody = z.infer<typeof systemPassBodySchema>;

export function runSystemPass(
  client: DwCommandClient,
  pass: SystemPass,
  body: SystemPassBody,
): Promise<PassResult<RepairPassReport | ActivityTimeoutPassReport | RetentionPassReport>> {
  if (pass === "retention-pass") return client.runRetentionPass({ runIds: body.runIds });
  return pass === "repair-pass"
    ? client.runRepairPass({ runIds: body.runIds })
    : client.runActivityTimeoutPass({ executionIds: body.executionIds });
}
