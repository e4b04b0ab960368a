import type { NextRequest } from "next/server";
import { parseNamespace } from "@/lib/preferences";
import { getDwClient } from "@/lib/server/proxy/dw-client";
import { withPersonLimit } from "@/lib/server/proxy/person-limits";
import { namespaceRequired } from "@/lib/server/proxy/read-proxy";
import { exportResponse, parseExportFormat } from "@/lib/server/export/list-export";
import type { ExportSource } from "@/lib/server/export/list-export";
import {
  failuresSource,
  runsExportFilter,
  runsSource,
  schedulesExportFilter,
  schedulesSource,
} from "@/lib/server/export/sources";
import { parseTriageWindow } from "@/lib/views/closed-failures";

type Params = { params: Promise<{ list: string }> };

function refused(status: number, reason: string, message: string): Response {
  return Response.json({ reason, message, httpStatus: status }, { status, headers: { "cache-control": "no-store" } });
}

/**
 * `GET /api/export/{runs|failures|schedules}?namespace=…&format=csv|json&<the screen's filters>`: a list
 * as a streamed download (lib/server/export). The namespace is in the query, as a download link
 * cannot send `X-Namespace`, and is validated as the read proxy validates the header; the upstream
 * reads carry the person's own token (proxy.ts authenticated them), so a role the server refuses for
 * the screen is refused here. One of the person's stream places is held until the file ends.
 */
export async function GET(request: NextRequest, { params }: Params): Promise<Response> {
  const { list } = await params;
  const query = request.nextUrl.searchParams;
  const namespace = parseNamespace(query.get("namespace"));
  if (namespace === null) return namespaceRequired();
  const format = parseExportFormat(query.get("format"));
  if (format === null) return refused(400, "invalid_format", "Name the format: format=csv or format=json.");
  const now = Date.now();
  const client = getDwClient(namespace);
  let source: ExportSource<unknown>;
  const filters: Record<string, string> = {};
  for (const [key, value] of query) if (key !== "namespace" && key !== "format") filters[key] = value;
  if (list === "runs") source = runsSource(client, runsExportFilter(query), now) as ExportSource<unknown>;
  else if (list === "schedules")
    source = schedulesSource(client, schedulesExportFilter(query), now) as ExportSource<unknown>;
  else if (list === "failures") {
    const group = query.get("group");
    if (!group) return refused(400, "group_required", "Name the Failures group: group=<its key>.");
    source = failuresSource(client, parseTriageWindow(query.get("window")), group, now) as ExportSource<unknown>;
  } else return refused(404, "not_exported", "Only runs, failures and schedules are exported.");
  return withPersonLimit(request, "streams", () =>
    exportResponse(source, format, { namespace, filters, startedAt: new Date(now).toISOString() }, request.signal),
  );
}
