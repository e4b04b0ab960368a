/**
 * Runs once when the Next server starts. The Node-only part lives in its own module so the Edge
 * compilation of this file never sees Node APIs.
 */
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME === "nodejs") {
    // Validates the configuration, installs the peer stamp and refuses an open bind without auth.
    const { validateConfigAtStartup } = await import("@/lib/server/process/startup");
    validateConfigAtStartup();
  }
}
