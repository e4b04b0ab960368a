import "server-only";
import { isDwError } from "@/lib/dw/errors";
import type { ConsoleConfig } from "@/lib/server/process/config";
import type { GuardRefusal } from "@/lib/server/proxy/action-guard";

/** Shared plumbing of the action handlers: namespace, refusals and failures as JSON answers. */

const NO_STORE = { "cache-control": "no-store" };

export function refusal(refused: GuardRefusal): Response {
  return Response.json(
    { reason: refused.reason, message: refused.message, httpStatus: refused.status },
    { status: refused.status, headers: NO_STORE },
  );
}

export function jsonAnswer(body: unknown, status: number): Response {
  return Response.json(body, { status, headers: NO_STORE });
}

/**
 * A failure to get an answer from the server, as a specific reason: the DW server's own 401/403/404
 * statuses pass through, a server that cannot be reached becomes 502. The token is never echoed.
 */
export function failure(error: unknown, config: ConsoleConfig): Response {
  if (isDwError(error)) {
    const status = error.httpStatus && error.httpStatus >= 400 ? error.httpStatus : 502;
    const message =
      error.reason === "server_unavailable"
        ? `The Durable Workflow server at ${config.serverHost} did not answer: ${error.message}`
        : error.message;
    return jsonAnswer(
      { reason: error.reason, serverReason: error.serverReason, message, httpStatus: error.httpStatus },
      status,
    );
  }
  return jsonAnswer(
    { reason: "internal_error", message: error instanceof Error ? error.message : String(error), httpStatus: null },
    500,
  );
}
