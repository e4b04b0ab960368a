import "server-only";
import type { Logger } from "pino";
import type { Person } from "@/lib/server/auth/principal";
import { getAuditLogger } from "@/lib/server/process/audit-log";
import { REQUEST_ID_HEADER } from "@/lib/server/process/log";
import { FORWARDED_PATH, isWrite } from "@/lib/server/proxy/attribution";

/**
 * One audit record per console action, as one structured log line (decision 0058,
 * docs/configuration.md "Audit log"): who (person, console role), what (action, target, reason),
 * and what came of it — `refused` by the console's guard, `accepted` or `rejected` by the server
 * (with its status and reason), or `failed` (no answer) — with the time and the request ids.
 */

export type AuditOutcome = "refused" | "accepted" | "rejected" | "failed";

export interface AuditTarget {
  namespace: string | null;
  workflowId: string | null;
  runId: string | null;
  /** A signal's, update's or query's name; a system pass's name. */
  name: string | null;
}

export interface AuditRecord {
  event: "breakwater.action";
  person: string | null;
  role: string | null;
  action: string;
  target: AuditTarget;
  reason: string | null;
  outcome: AuditOutcome;
  status: number | null;
  /** Why it was refused or rejected: the guard's reason, or the server's `reason` / `rejection_reason`. */
  refusal: string | null;
  commandId: string | null;
  /** The body's `request_id` (the command's idempotency key, what the Commands tab shows). */
  commandRequestId: string | null;
  /** The X-Request-Id of the call to the server (its log and the command context keep it). */
  requestId: string | null;
  time: string;
}

export function writeAudit(logger: Logger, record: AuditRecord): void {
  logger.info(record, "audit");
}

const text = (value: unknown): string | null => (typeof value === "string" && value !== "" ? value : null);

function segments(path: string): string[] {
  return path
    .replace(/^\/api\/?/, "")
    .split("/")
    .filter((part) => part !== "")
    .map((part) => {
      try {
        return decodeURIComponent(part);
      } catch {
        return part;
      }
    });
}

/**
 * The action and target a write to the server's API is: `/workflows` is a start; under
 * `/workflows/{id}[/runs/{runId}]` the next segment is the command and the one after it a name
 * (`signal/{name}`, `update/{name}`); anything else is named by its path.
 */
export function describeWrite(path: string, namespace: string | null): { action: string; target: AuditTarget } {
  const parts = segments(path);
  const target: AuditTarget = { namespace, workflowId: null, runId: null, name: null };
  if (parts[0] !== "workflows") return { action: parts.join("/") || "unknown", target };
  if (parts.length === 1) return { action: "start", target };
  target.workflowId = parts[1] ?? null;
  let rest = parts.slice(2);
  if (rest[0] === "runs" && rest[1] !== undefined) {
    target.runId = rest[1];
    rest = rest.slice(2);
  }
  target.name = rest[1] ?? null;
  return { action: rest[0] ?? "unknown", target };
}

function parseJson(body: unknown): Record<string, unknown> | null {
  if (typeof body !== "string" || body === "") return null;
  try {
    const value: unknown = JSON.parse(body);
    return value !== null && typeof value === "object" && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

async function answerOf(response: Response): Promise<Record<string, unknown> | null> {
  try {
    return parseJson(await response.clone().text());
  } catch {
    return null;
  }
}

/** accepted for 2xx (a start's `started_new` and a `command_status` of accepted alike), else rejected. */
function outcomeOf(status: number, answer: Record<string, unknown> | null): AuditOutcome {
  if (status >= 200 && status < 300) return text(answer?.command_status) === "rejected" ? "rejected" : "accepted";
  return "rejected";
}

/**
 * Wraps the fetch that reaches the server (inside `loggedFetch`, so the X-Request-Id is set): every
 * write is audited with the person asking, its answer read from a clone.
 */
export function auditedFetch(
  person: () => Promise<Person | null>,
  base: typeof fetch,
  logger: () => Logger = getAuditLogger,
  now: () => Date = () => new Date(),
): typeof fetch {
  return async (input, init) => {
    if (!isWrite(init?.method)) return base(input, init);
    const headers = new Headers(init?.headers);
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    const { action, target } = describeWrite(new URL(url).pathname, headers.get("x-namespace"));
    const body = parseJson(init?.body);
    const who = await person();
    const base_: Omit<AuditRecord, "outcome" | "status" | "refusal" | "commandId" | "time"> = {
      event: "breakwater.action",
      person: who?.user ?? null,
      role: who?.role ?? null,
      action,
      target,
      reason: text(body?.reason),
      commandRequestId: text(body?.request_id),
      requestId: headers.get(REQUEST_ID_HEADER),
    };
    let response: Response;
    try {
      response = await base(input, init);
    } catch (error) {
      writeAudit(logger(), {
        ...base_,
        outcome: "failed",
        status: null,
        refusal: error instanceof Error ? error.name : "unknown",
        commandId: null,
        time: now().toISOString(),
      });
      throw error;
    }
    const answer = await answerOf(response);
    const outcome = outcomeOf(response.status, answer);
    writeAudit(logger(), {
      ...base_,
      outcome,
      status: response.status,
      refusal: outcome === "accepted" ? null : (text(answer?.rejection_reason) ?? text(answer?.reason)),
      commandId: text(answer?.command_id),
      time: now().toISOString(),
    });
    return response;
  };
}

/** The audit record of a request the console's guard refused: nothing was sent to the server. */
export function auditRefusal(
  headers: { get(name: string): string | null },
  person: Person | null,
  refused: { status: number; reason: string },
  logger: () => Logger = getAuditLogger,
  now: () => Date = () => new Date(),
): void {
  writeAudit(logger(), {
    event: "breakwater.action",
    person: person?.user ?? null,
    role: person?.role ?? null,
    action: headers.get(FORWARDED_PATH) ?? "console action",
    target: { namespace: headers.get("x-namespace"), workflowId: null, runId: null, name: null },
    reason: null,
    outcome: "refused",
    status: refused.status,
    refusal: refused.reason,
    commandId: null,
    commandRequestId: null,
    requestId: null,
    time: now().toISOString(),
  });
}
