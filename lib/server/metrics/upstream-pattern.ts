import "server-only";
import { ENDPOINTS } from "@/lib/dw/endpoints";

/**
 * The label of one call to the Durable Workflow server: `METHOD /pattern`, the pattern being the
 * endpoint table's (lib/dw/endpoints.ts) for a declared read, and for a command the same shape made
 * from its path — the segment after a collection name becomes its placeholder, and any other segment
 * that is not a plain lower-case word becomes `{id}`. Ids, names and query strings never become label
 * values, so the number of series stays that of the console's own calls.
 */

const TABLE = Object.values(ENDPOINTS).map((spec) => ({
  method: spec.method as string,
  pattern: spec.path,
  regex: new RegExp(`^${spec.path.replace(/\{\w+\}/g, "[^/]+")}$`),
}));

/** The segment after each of these is an id or a name (server routes/api.php). */
const PLACEHOLDER_AFTER: Readonly<Record<string, string>> = {
  workflows: "{workflowId}",
  runs: "{runId}",
  schedules: "{scheduleId}",
  workers: "{workerId}",
  "task-queues": "{name}",
  namespaces: "{namespace}",
  query: "{queryName}",
  update: "{updateName}",
  updates: "{updateId}",
  signal: "{signalName}",
  "search-attributes": "{name}",
};

const WORD = /^[a-z][a-z-]{0,40}$/;

/** The path after the server's `/api` prefix (the server URL may itself have a path). */
function apiPath(pathname: string): string {
  const at = pathname.indexOf("/api/");
  if (at >= 0) return pathname.slice(at + 4);
  return pathname.endsWith("/api") ? "/" : pathname;
}

export function upstreamPattern(method: string, pathname: string): string {
  const verb = method.toUpperCase();
  const path = apiPath(pathname).replace(/\/+$/, "") || "/";
  const declared = TABLE.find((entry) => entry.method === verb && entry.regex.test(path));
  if (declared) return `${verb} ${declared.pattern}`;
  const segments = path.split("/").slice(1);
  const shaped = segments.map((segment, i) => {
    const previous = i > 0 ? segments[i - 1] : undefined;
    const placeholder = previous !== undefined ? PLACEHOLDER_AFTER[previous] : undefined;
    if (placeholder !== undefined) return placeholder;
    return WORD.test(segment) ? segment : "{id}";
  });
  return `${verb} /${shaped.join("/")}`;
}
