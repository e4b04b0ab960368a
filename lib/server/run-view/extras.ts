import "server-only";
import type { Logger } from "pino";
import { CONTROL_PLANE_VERSION, CONTROL_PLANE_VERSION_HEADER, pathSegment } from "@/lib/dw/transport";
import { DwServerUnavailableError, errorFromResponse } from "@/lib/dw/errors";
import type { RunViewExtras } from "@/lib/run-view/wire";
import { forwardedPerson } from "@/lib/server/auth/principal";
import type { ConsoleConfig } from "@/lib/server/process/config";
import { credentialedFetch } from "@/lib/server/proxy/dw-client";
import { loggedFetch } from "@/lib/server/process/log";
import { errorEnvelope } from "./responses";
import type { WalkTarget } from "./walker";

/**
 * The sections only the export has (tasks, commands, projected waits, links), read from the export
 * on the console server when a tab asks for them: the one path of the run view that still reads the
 * export (docs/decisions/0020). The bundle is parsed here and dropped; only those sections (and the
 * byte count) are kept, as read — no schema: they are relayed, and the bundle's other 100+ MB never
 * reach the browser.
 */

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function records(value: unknown): Record<string, unknown>[] {
  return Array.isArray(value) ? value.filter(isRecord) : [];
}

export function extrasOf(bundle: unknown, exportBytes: number): RunViewExtras {
  const root = isRecord(bundle) ? bundle : {};
  const links = isRecord(root.links)
    ? { parents: records(root.links.parents), children: records(root.links.children) }
    : null;
  return {
    tasks: records(root.tasks),
    commands: records(root.commands),
    waits: records(root.waits),
    links,
    exportBytes,
  };
}

function aborted(signal: AbortSignal, timeout: AbortSignal, error: unknown): unknown {
  if (timeout.aborted && !signal.aborted) {
    return new DwServerUnavailableError("the export did not arrive in time", {
      unavailableCause: "timeout",
      cause: error,
    });
  }
  if (signal.aborted) return error;
  return new DwServerUnavailableError(`cannot reach the Durable Workflow server: ${String(error)}`, {
    unavailableCause: "network",
    cause: error,
  });
}

export async function readExtras(
  config: ConsoleConfig,
  request: Request,
  namespace: string,
  target: WalkTarget,
  baseFetch: typeof fetch,
  logger: Logger,
): Promise<{ body: Buffer } | { refusal: Response }> {
  const person = forwardedPerson(request.headers);
  const send = credentialedFetch(config, () => Promise.resolve(person), loggedFetch(logger, baseFetch));
  const url = `${config.serverUrl}/api/workflows/${pathSegment(target.workflowId)}/runs/${pathSegment(target.runId)}/history/export`;
  const timeout = AbortSignal.timeout(config.exportTimeoutMs);
  const signal = AbortSignal.any([request.signal, timeout]);
  try {
    const response = await send(url, {
      headers: {
        Accept: "application/json",
        "Accept-Encoding": "gzip",
        "X-Namespace": namespace,
        [CONTROL_PLANE_VERSION_HEADER]: CONTROL_PLANE_VERSION,
      },
      signal,
      cache: "no-store",
    });
    const bytes = Buffer.from(await response.arrayBuffer());
    let json: unknown;
    try {
      json = JSON.parse(bytes.toString("utf8"));
    } catch {
      json = undefined;
    }
    if (response.status !== 200) return { refusal: errorEnvelope(config, errorFromResponse(response.status, json)) };
    if (json === undefined) {
      return {
        refusal: errorEnvelope(
          config,
          errorFromResponse(502, { reason: "malformed_response", message: "the export is not JSON" }),
        ),
      };
    }
    return { body: Buffer.from(JSON.stringify(extrasOf(json, bytes.length)), "utf8") };
  } catch (error) {
    return { refusal: errorEnvelope(config, aborted(request.signal, timeout, error)) };
  }
}
