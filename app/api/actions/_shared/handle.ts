import "server-only";
import type { NextRequest } from "next/server";
import type { DwCommandClient } from "@/lib/dw/commands";
import { isDwError } from "@/lib/dw/errors";
import { guardAction } from "@/lib/server/proxy/action-guard";
import { namespaceRequired } from "@/lib/server/proxy/read-proxy";
import { requestNamespace } from "@/lib/server/proxy/request-namespace";
import { getConfig } from "@/lib/server/process/config";
import { getDwClient } from "@/lib/server/proxy/dw-client";
import { failure, jsonAnswer, refusal } from "./respond";
import { countAction } from "@/lib/server/metrics/prometheus";
import type { ActionOutcome } from "@/lib/server/metrics/prometheus";

/** A body the action's descriptor parsed, or what is wrong with it in words. */
export type ParsedBody<R> = { ok: true; request: R } | { ok: false; message: string };

/** A zod `safeParse` result as a {@link ParsedBody}: the first issue is the message. */
export function parsedBody<R>(
  result: { success: true; data: R } | { success: false; error: { issues: { message: string }[] } },
): ParsedBody<R> {
  return result.success
    ? { ok: true, request: result.data }
    : { ok: false, message: result.error.issues[0]?.message ?? "invalid body" };
}

export interface ActionHandler<R> {
  role: "operator" | "admin";
  parse: (raw: unknown) => ParsedBody<R>;
  /** Sends the parsed request; the answer is relayed with `status`. */
  send: (client: DwCommandClient, request: R, namespace: string) => Promise<{ body: unknown; status: number }>;
  /** An empty body stands for `{}` (the maintenance passes take optional ids). */
  emptyBodyIsObject?: boolean;
}

/**
 * Every action route's one path: guard (same origin, read-only mode, role) → JSON body → the
 * descriptor's parse → the namespace the sending tab shows (never a cookie another tab may have
 * changed since) → send → the server's answer, or its failure as a specific reason.
 */
export async function handleAction<R>(request: NextRequest, handler: ActionHandler<R>): Promise<Response> {
  // The console's Prometheus metrics count each action by kind and outcome (decision 0062).
  const note: ActionNote = { kind: actionGroup(request.nextUrl.pathname), outcome: "failed" };
  try {
    return await handleActionOnce(request, handler, note);
  } finally {
    countAction(note.kind, note.outcome);
  }
}

interface ActionNote {
  kind: string;
  outcome: ActionOutcome;
}

/** `runs`, `schedules`, `system/repair-pass`: the route's path under /api/actions (each one a route the app has). */
function actionGroup(pathname: string): string {
  const at = pathname.indexOf("/api/actions/");
  return at < 0 ? "unknown" : pathname.slice(at + "/api/actions/".length).replace(/\/+$/, "");
}

/** The group and the descriptor's `action` (a literal of its union), e.g. `runs.terminate`. */
function actionKind(group: string, parsed: unknown): string {
  const action = typeof parsed === "object" && parsed !== null && "action" in parsed ? parsed.action : null;
  return typeof action === "string" && /^[A-Za-z][\w-]{0,40}$/.test(action) ? `${group}.${action}` : group;
}

async function handleActionOnce<R>(
  request: NextRequest,
  handler: ActionHandler<R>,
  note: ActionNote,
): Promise<Response> {
  note.outcome = "refused";
  const config = getConfig();
  const refused = guardAction(request.headers, config, handler.role);
  if (refused) return refusal(refused);

  let raw: unknown;
  try {
    const text = await request.text();
    raw = handler.emptyBodyIsObject && text.trim() === "" ? {} : JSON.parse(text);
  } catch {
    return jsonAnswer({ reason: "invalid_request", message: "The request body is not JSON.", httpStatus: 400 }, 400);
  }
  const parsed = handler.parse(raw);
  if (!parsed.ok) return jsonAnswer({ reason: "invalid_request", message: parsed.message, httpStatus: 400 }, 400);
  note.kind = actionKind(note.kind, parsed.request);

  const namespace = requestNamespace(request.headers);
  if (namespace === null) return namespaceRequired();
  try {
    const { body, status } = await handler.send(getDwClient(namespace), parsed.request, namespace);
    note.outcome = status < 400 ? "accepted" : "rejected";
    return jsonAnswer(body, status);
  } catch (error) {
    const status = isDwError(error) ? (error.httpStatus ?? 0) : 0;
    note.outcome = status >= 400 && status < 500 ? "rejected" : "failed";
    return failure(error, config);
  }
}
