import "server-only";
import { createDwClient } from "@/lib/dw/client";
import { forwardedPerson } from "@/lib/server/auth/principal";
import type { ConsoleConfig } from "@/lib/server/process/config";
import { credentialedFetch } from "@/lib/server/proxy/dw-client";
import { getLogger, loggedFetch } from "@/lib/server/process/log";
import { MetricsSampler } from "@/lib/server/metrics/sampler";
import { RedisMetricsSampler } from "@/lib/server/shared/metrics-history";
import { sharedRedis } from "@/lib/server/shared/stores";
import { SAMPLE_INTERVAL_MS } from "@/lib/server/metrics/sampler";
import type { MetricsRead, SamplerCredential } from "@/lib/server/metrics/sampler";
import { namespaceRequired } from "@/lib/server/proxy/read-proxy";
import { requestNamespace } from "@/lib/server/proxy/request-namespace";
import { errorEnvelope, jsonError } from "@/lib/server/run-view/responses";
import { toSample } from "@/lib/views/metrics-samples";
import type { MetricsHistory, MetricsSample } from "@/lib/views/metrics-samples";

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

/** This process's sampler (MetricsSampler) or the replicas' shared one (RedisMetricsSampler). */
export interface MetricsHistorySource {
  view(namespace: string, credential: SamplerCredential, sample: MetricsSample): boolean | Promise<boolean>;
  history(namespace: string, since: number | null): MetricsHistory | Promise<MetricsHistory>;
}

export async function metricsHistoryResponse(
  config: ConsoleConfig,
  sampler: MetricsHistorySource,
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
  let history: MetricsHistory;
  try {
    // The read that authorised this request is a sample too: the first viewer sees one at once.
    await sampler.view(namespace, credential, sample);
    history = await sampler.history(namespace, since);
  } catch (error) {
    // The shared history (Redis) is unreachable: the page gets this read alone, as past the sampling bound.
    getLogger().warn({ failure: error instanceof Error ? error.message : String(error) }, "metrics history unreadable");
    history = { sampling: false, intervalMs: SAMPLE_INTERVAL_MS, since: null, points: [sample] };
  }
  return Response.json(history, { headers: { "cache-control": "no-store" } });
}

const SHARED = Symbol.for("breakwater.metrics-sampler");

/**
 * The process-wide sampler, on globalThis: Next may evaluate this module once per route bundle,
 * and there must be one timer and one ring per namespace for the whole console process. With
 * BREAKWATER_REDIS_URL, the replicas' one shared sampler and history (lib/server/shared/metrics-history.ts).
 */
export function getMetricsSampler(config: ConsoleConfig): MetricsSampler | RedisMetricsSampler {
  const holder = globalThis as unknown as Record<symbol, MetricsSampler | RedisMetricsSampler | undefined>;
  if (holder[SHARED] === undefined) {
    const redis = sharedRedis();
    const read = metricsReadFor(config);
    holder[SHARED] = redis === null ? new MetricsSampler({ read }) : new RedisMetricsSampler(redis, { read });
  }
  return holder[SHARED];
}
