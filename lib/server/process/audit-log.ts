import "server-only";
import pino from "pino";
import type { Logger } from "pino";
import { getLogger } from "@/lib/server/process/log";

/**
 * Where the audit records go (docs/configuration.md "Audit log"): with BREAKWATER_AUDIT_LOG_FILE,
 * pino JSON lines appended to that file (one line per action, written before the answer leaves, for
 * a log shipper to tail); without it, the console's own log at `info`, in BREAKWATER_LOG_FORMAT.
 */

let shared: { file: string | null; logger: Logger } | undefined;

export function auditLogFile(env: NodeJS.ProcessEnv = process.env): string | null {
  const file = env.BREAKWATER_AUDIT_LOG_FILE?.trim();
  return file ? file : null;
}

export function getAuditLogger(): Logger {
  const file = auditLogFile();
  if (shared?.file === file) return shared.logger;
  const logger = file
    ? pino({ name: "breakwater-audit", level: "info" }, pino.destination({ dest: file, sync: true, mkdir: true }))
    : getLogger().child({}, { level: "info" });
  shared = { file, logger };
  return logger;
}
