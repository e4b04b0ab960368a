import type { NextRequest } from "next/server";
import { isSystemPass, runSystemPass, systemPassBodySchema } from "@/lib/actions/system-passes";
import { guardAction } from "@/lib/server/proxy/action-guard";
import { failure, jsonAnswer, refusal } from "@/app/api/actions/_shared/respond";
import { namespaceRequired } from "@/lib/server/proxy/read-proxy";
import { requestNamespace } from "@/lib/server/proxy/request-namespace";
import { getConfig } from "@/lib/server/process/config";
import { getDwClient } from "@/lib/server/proxy/dw-client";

/**
 * `POST /api/actions/system/repair-pass` and `/activity-timeout-pass`: the admin maintenance passes
 * (lib/actions/system-passes.ts). The report is relayed with the server's 200 or 207 (some items failed).
 */
export async function POST(request: NextRequest, { params }: { params: Promise<{ pass: string }> }): Promise<Response> {
  const config = getConfig();
  const { pass } = await params;
  if (!isSystemPass(pass))
    return jsonAnswer({ reason: "not_found", message: `No maintenance pass named ${pass}.`, httpStatus: 404 }, 404);
  const refused = guardAction(request.headers, config, "admin");
  if (refused) return refusal(refused);

  const text = await request.text();
  let raw: unknown = {};
  try {
    raw = text.trim() === "" ? {} : JSON.parse(text);
  } catch {
    return jsonAnswer({ reason: "invalid_request", message: "The request body is not JSON.", httpStatus: 400 }, 400);
  }
  const parsed = systemPassBodySchema.safeParse(raw);
  if (!parsed.success)
    return jsonAnswer(
      { reason: "invalid_request", message: parsed.error.issues[0]?.message ?? "invalid body", httpStatus: 400 },
      400,
    );

  // The namespace the sending tab shows, never a cookie another tab may have changed since.
  const namespace = requestNamespace(request.headers);
  if (namespace === null) return namespaceRequired();
  const client = getDwClient(namespace);
  try {
    const result = await runSystemPass(client, pass, parsed.data);
    return jsonAnswer(
      { httpStatus: result.httpStatus, partial: result.partial, report: result.report },
      result.httpStatus,
    );
  } catch (error) {
    return failure(error, config);
  }
}
