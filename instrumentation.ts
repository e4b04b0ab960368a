/**
 * Runs once when the Next server starts. The Node-only part lives in its own module so the Edge
 * compilation of this file never sees Node APIs.
 */
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME === "nodejs") {
    const { validateConfigAtStartup } = await import("@/lib/server/startup");
    validateConfigAtStartup();
    // Before the first request: proxy-mode auth needs each request's real peer address.
    const { installPeerStamp } = await import("@/lib/server/auth/peer");
    installPeerStamp();
  }
}
