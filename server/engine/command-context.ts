/**
 * What a control-plane command's stored context says about who sent it, read the way the engine's
 * `WorkflowCommand` accessors read it (workflow src/V2/Models/WorkflowCommand.php@8dc90d64:
 * `callerLabel()`, `authStatus()`, `authMethod()`, `requestId()`, `correlationId()`, …). The context
 * is written by the HTTP layer as `WorkflowCommandContextFactory::make` builds it (durable-workflow/
 * server app/Support/WorkflowCommandContextFactory.php@11d35b7): `caller`, `auth`, `request`.
 */
import type { CommandRow } from "./rows";
import { parsePayload } from "./rows";

/** `caller`: the forwarded caller when the server trusts it, else the server itself. */
export interface CommandCaller {
  type: string;
  label: string;
}

/** `auth`: the status and method, the authenticated role(s) and the principal's audit context. */
export interface CommandAuth {
  status: string;
  method: string;
  role?: string;
  roles?: string[];
  principal?: Record<string, unknown>;
}

/**
 * The HTTP request that created a command (`requestMetadata`: method, `'/'.ltrim(path)`, ip, user
 * agent, the X-Request-Id / X-Correlation-Id headers), with the caller and auth parts beside it.
 */
export interface CommandRequest {
  method: string;
  path: string;
  ip?: string;
  user_agent?: string;
  request_id?: string;
  correlation_id?: string;
  caller?: CommandCaller;
  auth?: CommandAuth;
}

/** The stored context: `{reason, request, caller?, auth?}` (reason is the twin's own place for it). */
export function storedContext(reason: string | null, request: CommandRequest | null | undefined): string {
  if (!request) return JSON.stringify({ reason });
  const { caller, auth, ...http } = request;
  return JSON.stringify({ reason, request: http, ...(caller ? { caller } : {}), ...(auth ? { auth } : {}) });
}

function part(context: Record<string, unknown>, key: string): Record<string, unknown> | null {
  const value = context[key];
  return value !== null && typeof value === "object" && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : null;
}

const text = (value: unknown): string | null => (typeof value === "string" && value !== "" ? value : null);

export interface CommandAttribution {
  caller_label: string | null;
  auth_status: string | null;
  auth_method: string | null;
  request_method: string | null;
  request_path: string | null;
  request_id: string | null;
  correlation_id: string | null;
}

/** The accessors' answers for one row; `request_id` prefers the column (the body's `request_id`). */
export function commandAttribution(row: Pick<CommandRow, "context" | "request_id">): CommandAttribution {
  const context = parsePayload(row.context);
  const caller = part(context, "caller");
  const auth = part(context, "auth");
  const request = part(context, "request");
  return {
    caller_label: text(caller?.label),
    auth_status: text(auth?.status),
    auth_method: text(auth?.method),
    request_method: text(request?.method),
    request_path: text(request?.path),
    request_id: text(row.request_id) ?? text(request?.request_id),
    correlation_id: text(request?.correlation_id),
  };
}
