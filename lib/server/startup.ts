import { getConfig } from "@/lib/server/config";

/**
 * A bad environment stops the console at start-up with a message naming the variable, instead of a
 * server that reports "ready" and then fails every request.
 */
export function validateConfigAtStartup(): void {
  try {
    getConfig();
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  }
}
