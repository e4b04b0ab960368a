import { Server } from "node:net";
import { isLoopbackAddress } from "../auth/peer";
import { parseAuthSettings } from "../auth/settings";

/**
 * Where the console may listen. Without console authentication it is for local access only, and
 * two places hold that line (docs/decisions/0012):
 *  - `npm start` (scripts/start.ts) binds from the *parsed* auth mode, so `BREAKWATER_AUTH=none`
 *    (or a setting the console would refuse anyway) keeps it on 127.0.0.1 whatever BREAKWATER_HOST says;
 *  - the console process itself (instrumentation → lib/server/process/startup.ts) refuses to start when auth
 *    is off and it is listening beyond loopback (`npx next start` without `-H` binds every interface),
 *    and, as a backstop, refuses any connection that arrives on a non-loopback address.
 */

/** The `-H` scripts/start.ts passes to `next start`. */
export function launcherBindHost(env: Record<string, string | undefined>): string {
  const auth = parseAuthSettings(env);
  const mode = "settings" in auth ? auth.settings.mode : "none";
  if (mode === "none") return "127.0.0.1";
  return env.BREAKWATER_HOST?.trim() || "127.0.0.1";
}

export interface ListeningAddress {
  address: string;
  port: number;
}

/**
 * The addresses this process's servers listen on. `next start` listens before it loads
 * instrumentation, and no public API names its server, so this reads Node's active handles (an
 * undocumented but long-standing `process` method); where that is missing, the answer is empty and
 * the per-connection check in peer.ts still holds.
 */
export function listeningAddresses(): ListeningAddress[] {
  const handles = (process as unknown as { _getActiveHandles?: () => unknown[] })._getActiveHandles?.() ?? [];
  const addresses: ListeningAddress[] = [];
  for (const handle of handles) {
    if (!(handle instanceof Server) || !handle.listening) continue;
    const address = handle.address();
    if (address && typeof address === "object") addresses.push({ address: address.address, port: address.port });
  }
  return addresses;
}

/** Why a console without authentication must not serve on these addresses; null when it may. */
export function openBindProblem(addresses: readonly ListeningAddress[]): string | null {
  const open = addresses.filter((entry) => !isLoopbackAddress(entry.address));
  if (open.length === 0) return null;
  const where = open
    .map((entry) =>
      entry.address.includes(":") ? `[${entry.address}]:${entry.port}` : `${entry.address}:${entry.port}`,
    )
    .join(", ");
  return (
    `Refusing to serve: no console authentication (BREAKWATER_AUTH) and listening on ${where}, beyond loopback. ` +
    "Listen on 127.0.0.1 (next start -H 127.0.0.1, or npm start) or set BREAKWATER_AUTH=proxy|password."
  );
}
