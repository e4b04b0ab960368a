/**
 * Console routes. Every screen that reads a namespace's data lives under `/namespaces/{ns}/…`
 * (docs/decisions/0017): the URL, not a cookie, says which namespace a page shows, so a copied link
 * opens the namespace it was copied from. Ids may hold `/`, `%`, `?`, `#` or unicode, so every id is
 * one encoded path segment; the route pages decode them back with {@link routeParam}.
 */

/** The namespaced screens of the primary navigation; `overview` is the namespace's root. */
export const SCREENS = [
  "overview",
  "runs",
  "attention",
  "failures",
  "system",
  "workers",
  "schedules",
  "search-attributes",
  "namespaces",
] as const;
export type Screen = (typeof SCREENS)[number];

export function namespaceHref(namespace: string): string {
  return `/namespaces/${encodeURIComponent(namespace)}`;
}

export function screenHref(namespace: string, screen: Screen): string {
  return screen === "overview" ? namespaceHref(namespace) : `${namespaceHref(namespace)}/${screen}`;
}

export function workflowHref(namespace: string, workflowId: string): string {
  return `${namespaceHref(namespace)}/workflows/${encodeURIComponent(workflowId)}`;
}

export function runHref(namespace: string, workflowId: string, runId: string): string {
  return `${workflowHref(namespace, workflowId)}/runs/${encodeURIComponent(runId)}`;
}

/** One schedule's page (its id one encoded segment). */
export function scheduleHref(namespace: string, scheduleId: string): string {
  return `${screenHref(namespace, "schedules")}/${encodeURIComponent(scheduleId)}`;
}

/** The Schedules list, optionally showing only the late ones or those whose last run failed (`?show=`). */
export function schedulesListHref(namespace: string, show?: "late" | "failed"): string {
  const list = screenHref(namespace, "schedules");
  return show ? `${list}?show=${show}` : list;
}

/** A list's download (app/api/export): its namespace and format, and the screen's filters as they are. */
export function exportHref(
  list: "runs" | "failures" | "schedules",
  namespace: string,
  format: "csv" | "json",
  filters: Readonly<Record<string, string>> = {},
): string {
  const query = new URLSearchParams({ namespace, format });
  for (const [key, value] of Object.entries(filters)) if (value !== "") query.set(key, value);
  return `/api/export/${list}?${query.toString()}`;
}

/** The runs list, optionally on one of the server's status buckets (its `status` filter). */
export function runsListHref(namespace: string, status?: "running" | "completed" | "failed"): string {
  const list = screenHref(namespace, "runs");
  return status ? `${list}?status=${status}` : list;
}

/** The Kikwiflow section (KIKWIFLOW_URL): one engine, no namespaces. */
export const KIKWIFLOW_HREF = "/kikwiflow";

/** Kikwiflow instances with OPEN incidents, grouped by type × task × exception. */
export const KIKWIFLOW_ATTENTION_HREF = `${KIKWIFLOW_HREF}/attention`;

export function kikwiflowInstanceHref(instanceId: string): string {
  return `${KIKWIFLOW_HREF}/instances/${encodeURIComponent(instanceId)}`;
}

/** Every deployed Kikwiflow process definition (each version is its own id). */
export const KIKWIFLOW_DEFINITIONS_HREF = `${KIKWIFLOW_HREF}/definitions`;

/** One definition by its id (a UUID: what instances carry as `processDefinitionId`). */
export function kikwiflowDefinitionHref(definitionId: string): string {
  return `${KIKWIFLOW_DEFINITIONS_HREF}/${encodeURIComponent(definitionId)}`;
}

/** Same-origin download of the server's history export bundle, relayed unchanged. */
export function runExportHref(namespace: string, workflowId: string, runId: string): string {
  return `${runHref(namespace, workflowId, runId)}/export`;
}

/** The screen a namespaced path shows (for the navigation's current item), or null outside one. */
export function screenOf(pathname: string): Screen | null {
  const match = /^\/namespaces\/[^/]+(\/[^/]*)?/.exec(pathname);
  if (!match) return null;
  const first = match[1]?.slice(1) ?? "";
  if (first === "") return "overview";
  if (first === "workflows") return "runs";
  return (SCREENS as readonly string[]).includes(first) ? (first as Screen) : null;
}

/**
 * Where the namespace switcher goes: the same screen in the other namespace. A workflow or run
 * page names a run of the namespace it left, so it becomes that namespace's runs list; filters and
 * cursors belong to the old namespace's data and are dropped.
 */
export function switchNamespaceHref(pathname: string, namespace: string): string {
  return screenHref(namespace, screenOf(pathname) ?? "overview");
}

/** The paths of the console before the namespace moved into the URL; they redirect (proxy.ts). */
const LEGACY_PATH = /^\/(?:runs|attention|system|workers)$|^\/workflows\/[^/]/;

/**
 * A pre-namespace path (`/`, `/runs`, `/workflows/…`, …) as the same screen in `namespace` (the
 * last one used), or null when the path is not one of them. The query string is the caller's.
 */
export function legacyRedirectPath(pathname: string, namespace: string): string | null {
  if (pathname === "/") return namespaceHref(namespace);
  const path = pathname.endsWith("/") && pathname !== "/" ? pathname.slice(0, -1) : pathname;
  return LEGACY_PATH.test(path) ? `${namespaceHref(namespace)}${path}` : null;
}

/**
 * A dynamic route param as the id it names. Next hands params over still percent-encoded; decoding
 * once restores ids with `/`, `%` or unicode, and a malformed escape is kept verbatim.
 */
export function routeParam(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
