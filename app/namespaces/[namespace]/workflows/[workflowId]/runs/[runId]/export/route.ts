import type { NextRequest } from "next/server";
import { createTranslator } from "next-intl";
import { routeParam, runHref } from "@/lib/routes/route-for";
import { LOCALE_COOKIE, parseNamespace } from "@/lib/preferences";
import { resolveLocale } from "@/lib/i18n/locales";
import { loadMessages } from "@/lib/i18n/messages";
import { getConfig } from "@/lib/server/process/config";
import { tokenForRequest } from "@/lib/server/proxy/dw-client";
import type { ExportFailure, ExportPageWords } from "@/lib/server/proxy/export-stream";
import { exportFailureResponse, startExportStream } from "@/lib/server/proxy/export-stream";
import { withPersonLimit } from "@/lib/server/proxy/person-limits";

/** File names keep to a safe alphabet; the ids themselves travel in the bundle. */
function fileName(workflowId: string, runId: string): string {
  const safe = (value: string) => value.replace(/[^A-Za-z0-9._-]+/g, "_").slice(0, 80);
  return `history-export-${safe(workflowId)}-${safe(runId)}.json`;
}

const EXPLAINED = new Set([
  "run_not_found",
  "export_too_large",
  "server_unavailable",
  "server_timeout",
  "unauthorized",
  "forbidden",
]);

function pageWords(request: NextRequest): ExportPageWords {
  const locale = resolveLocale(request.cookies.get(LOCALE_COOKIE)?.value, request.headers.get("accept-language"));
  const t = createTranslator({ locale, messages: loadMessages(locale), namespace: "exportDownload" });
  return {
    lang: locale,
    title: t("title"),
    heading: t("heading"),
    back: t("back"),
    explain: (failure: ExportFailure) =>
      EXPLAINED.has(failure.reason)
        ? t(`reason.${failure.reason as "run_not_found"}`)
        : t("reason.other", { status: failure.status }),
  };
}

/** A navigation (the link clicked, or opened in a tab) asks for HTML or says it navigates; fetch and curl do neither. */
function wantsHtml(request: NextRequest): boolean {
  if (request.headers.get("sec-fetch-mode") === "navigate") return true;
  return (request.headers.get("accept") ?? "").toLowerCase().includes("text/html");
}

/**
 * "Download history export": the server's bundle relayed byte for byte, still compressed
 * (lib/server/proxy/export-stream.ts), as an attachment; its integrity checksum stays valid. The
 * signed-in person's token is added here (a viewer's export goes out with the viewer's token, like
 * every other read) and never reaches the browser. A failure before the first byte is a page with
 * a way back to the run for a person, the JSON error for a program.
 */
async function download(
  request: NextRequest,
  { params }: { params: Promise<{ namespace: string; workflowId: string; runId: string }> },
): Promise<Response> {
  const config = getConfig();
  const { namespace: rawNamespace, workflowId: rawWorkflowId, runId: rawRunId } = await params;
  // The namespace of the link (a plain download cannot carry X-Namespace); invalid is a 404 like a page's.
  const namespace = parseNamespace(routeParam(rawNamespace));
  if (namespace === null) return new Response("Not found\n", { status: 404 });
  const workflowId = routeParam(rawWorkflowId);
  const runId = routeParam(rawRunId);
  const started = await startExportStream(config, {
    workflowId,
    runId,
    namespace,
    token: tokenForRequest(config, request.headers),
    // Identity from the server, never its gzip: Next 16 drops Content-Encoding from a route handler's
    // Response (next/dist/server/send-response.js FORBIDDEN_HEADERS) and then gzips JSON itself, so
    // relayed gzip bytes reached the browser compressed twice and were saved as a .json of gzip.
    // Next's own compression still streams the bundle to the browser gzipped.
    acceptEncoding: null,
    signal: request.signal,
  });
  if (!started.ok)
    return exportFailureResponse(started.failure, {
      serverHost: config.serverHost,
      page: wantsHtml(request)
        ? { words: pageWords(request), runHref: runHref(namespace, workflowId, runId) }
        : undefined,
    });
  const { response } = started;
  response.headers.set("content-disposition", `attachment; filename="${fileName(workflowId, runId)}"`);
  return response;
}

/** One of the person's stream places until the download ends (lib/server/proxy/person-limits.ts). */
export async function GET(
  request: NextRequest,
  context: { params: Promise<{ namespace: string; workflowId: string; runId: string }> },
): Promise<Response> {
  return withPersonLimit(request, "streams", () => download(request, context));
}
