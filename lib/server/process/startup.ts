import "server-only";
import { join } from "node:path";
import { builtDistDir } from "@/lib/http/dist-dir";
import { getConfig } from "@/lib/server/process/config";
import { installPeerStamp } from "@/lib/server/auth/peer";
import type { TrustedProxies } from "@/lib/server/auth/trusted-proxies";
import { listeningAddresses, openBindProblem } from "@/lib/server/process/bind";
import { createAssetServer } from "@/lib/server/edge/static-assets";
import { installLifecycle } from "@/lib/server/process/lifecycle";
import { shutdownGraceMs } from "@/lib/server/process/shutdown-grace";
import { buildRouteMatcher } from "@/lib/server/metrics/route-pattern";
import { getLogger } from "@/lib/server/process/log";

/** The build's compressed script and style files (decision 0037), in next.config.ts's distDir. */
function assetServer() {
  return createAssetServer(join(process.cwd(), builtDistDir(), "static"));
}

/**
 * A bad environment stops the console at start-up with a message naming the variable, instead of a
 * server that reports "ready" and then fails every request. So does a console without
 * authentication that listens beyond loopback (lib/server/process/bind.ts).
 */
export function validateConfigAtStartup(): void {
  let openConsole: boolean;
  let trustedProxies: TrustedProxies;
  let requestsPerAddress: number;
  let graceMs: number;
  try {
    graceMs = shutdownGraceMs(process.env);
    const config = getConfig();
    openConsole = config.auth.mode === "none";
    trustedProxies = config.hosts.trustedProxies;
    requestsPerAddress = config.personLimits.requestsPerAddress;
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  }
  // Before the first request: proxy-mode auth needs each request's real peer address, forwarded
  // headers count only from BREAKWATER_TRUSTED_PROXIES (the stamp deletes everyone else's), one
  // client address has at most BREAKWATER_REQUESTS_PER_ADDRESS requests in flight, a console
  // without auth refuses connections that did not arrive on loopback, and the build's script and
  // style files are answered from their compressed copies. Not under `next dev`, which serves a
  // build of its own (.next/dev): the copies in .next belong to the production build.
  const serveFirst = process.env.NODE_ENV === "production" ? assetServer().serve : undefined;
  installPeerStamp({ loopbackOnly: openConsole, serveFirst, trustedProxies, requestsPerAddress });
  // Request metrics by route, and on SIGTERM a bounded drain that exits 0 (lifecycle.ts). Under
  // `next dev` only the metrics: its own signal handling restarts and stops the dev server.
  const production = process.env.NODE_ENV === "production";
  installLifecycle({
    routeOf: buildRouteMatcher(builtDistDir()),
    graceMs,
    signals: production ? process : null,
    takeOver: production,
    log: (message, fields) => getLogger().info(fields ?? {}, message),
  });
  const problem = openConsole ? openBindProblem(listeningAddresses()) : null;
  if (problem) {
    console.error(problem);
    process.exit(1);
  }
}
