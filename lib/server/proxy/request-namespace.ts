import "server-only";
import { parseNamespace } from "@/lib/preferences";
import type { HeaderSource } from "@/lib/server/auth/principal";

/**
 * The namespace a browser request names. Reads through the proxy and action requests carry it in
 * `X-Namespace` — the same header the Durable Workflow API itself takes — set by the page from its
 * URL (docs/decisions/0017). It is validated like a URL segment; absent or invalid is null, and
 * the callers refuse rather than guess (no cookie, no configured default).
 */
export const NAMESPACE_HEADER = "x-namespace";

export function requestNamespace(headers: HeaderSource): string | null {
  return parseNamespace(headers.get(NAMESPACE_HEADER));
}

/**
 * The namespace of the page a document request is for (`/namespaces/{ns}/…`, validated), set by
 * proxy.ts on every request (a client-sent copy is replaced or removed): the root layout has no
 * route params, and its server render reads that namespace's navigation count (loaders.ts).
 */
export const PAGE_NAMESPACE_HEADER = "x-breakwater-page-namespace";
