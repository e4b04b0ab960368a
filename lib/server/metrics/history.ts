import "server-only";
import { createDwClient } from "@/lib/dw/client";
import { forwardedPerson } from "@/lib/server/auth/principal";
import type { ConsoleConfig } from "@/lib/server/process/config";
import { credentialedFetch } from "@/lib/server/proxy/dw-client";
import { getLogger, loggedFetch } from "@/lib/server/process/log";
import { MetricsSampler } from "@/lib/server/metrics/sampler";
import type { MetricsRead, SamplerCredential } from "@/lib/server/metrics/sampler";
import { namespaceRequired } from "@/lib/server/proxy/read-proxy";
import { requestNamespace } from "@/lib/server/proxy/request-namespace";
import { errorEnvelope, jsonError } from "@/lib/server/run-view/responses";
import { toSample } from "@/lib/views/metrics-samples";

/**
 * `GET /api/metrics/samples[?since=ms]` with `X-Namespace` (docs/decisions/0027): the request first
 * reads operator_metrics itself, with its own person's credentials; only when that passes does it
 * get the console's samples of the namespace (and register as its viewer). A refusal is relayed as
 * the read proxy relays it, so the page shows the same "requires admin" it shows for the live read.
 */

/** operator_metrics read with the token of `credential`'s role (lib/server/proxy/dw-client.ts tokenFor). */
export function metricsReadFor(
  config: ConsoleConfig,
  base: typeof fetch = globalThis.fetch.bind(globalThis),
): MetricsRead {
  const logged = loggedFetch(getLogger(), base);
  return async (namespace, credential, signal) => {
    const person = credential === null ? null : { user: `metrics-sampler:${credential}`, role: credential };
    const client = createDwClient({
      baseUrl: config.serverUrl,
      namespace,
      timeoutMs: config.timeoutMs,
      exportTimeoutMs: config.exportTimeoutMs,
      fetch: credentialedFetch(config, () => Promise.resolve(person), logged),
    });
    return (await client.operatorMetrics({ signal })).operator_metrics;
  };
}

/** The role whose token the console sends for this request: null without console auth. */
export function requestCredential(config: ConsoleConfig, headers: Headers): SamplerCredential {
  if (config.auth.mode === "none") return null;
  return forwardedPerson(headers)?.role ?? "viewer";
}

function sinceParam(url: URL): number | null | "invalid" {
  const since = url.searchParams.get("since");
  if (since === null || since === "") return null;
  return /^\d{1,15}$/.test(since) ? Number(since) : "invalid";
}

export async function metricsHistoryResponse(
  config: ConsoleConfig,
  sampler: MetricsSampler,
  request: Request,
  read: MetricsRead = metricsReadFor(config),
): Promise<Response> {
  const namespace = requestNamespace(request.headers);
  if (namespace === null) return namespaceRequired();
  const since = sinceParam(new URL(request.url));
  if (since === "invalid") {
    return jsonError(400, { reason: "bad_request", message: "since is epoch milliseconds.", httpStatus: 400 });
  }
  const credential = requestCredential(config, request.headers);
  let sample;
  try {
    sample = toSample(await read(namespace, credential, request.signal));
  } catch (error) {
    return errorEnvelope(config, error);
  }
  // The read that authorised this request is a sample too: the first viewer sees one at once.
  sampler.view(namespace, credential, sample);
  return Response.json(sampler.history(namespace, since), { headers: { "cache-control": "no-store" } });
}

const SHARED = Symbol.for("breakwater.metrics-sampler");

/**
 * The process-wide sampler, on globalThis: Next may evaluate this module once per route bundle,
 * and there must be one timer and one ring per namespace for the whole console process.
 */
export function getMetricsSampler(config: ConsoleConfig): MetricsSampler {
  const holder = globalThis as unknown as Record<symbol, MetricsSampler | undefined>;
  holder[SHARED] ??= new MetricsSampler({ read: metricsReadFor(config) });
  return holder[SHARED];
}
