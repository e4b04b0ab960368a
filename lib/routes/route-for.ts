/**
 * Console routes for workflows and runs. Ids may hold `/`, `%`, `?`, `#` or unicode, so every id is
 * one encoded path segment; the route pages decode them back with {@link routeParam}.
 */
export function workflowHref(workflowId: string): string {
  return `/workflows/${encodeURIComponent(workflowId)}`;
}

export function runHref(workflowId: string, runId: string): string {
  return `${workflowHref(workflowId)}/runs/${encodeURIComponent(runId)}`;
}

/** Same-origin download of the server's history export bundle, relayed unchanged. */
export function runExportHref(workflowId: string, runId: string): string {
  return `${runHref(workflowId, runId)}/export`;
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
