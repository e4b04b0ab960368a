/**
 * Kikwiflow's statuses as the console's badge tones (components/ui/status-badge.tsx keys them by
 * Durable Workflow's lower-case statuses): an ACTIVE instance reads like a running run, an ERROR
 * task like a failed one. The badge still shows the engine's own word.
 */
const TONE: Readonly<Record<string, string>> = {
  ACTIVE: "running",
  COMPLETED: "completed",
  CANCELLED: "cancelled",
  PENDING: "pending",
  EXECUTING: "running",
  LOCKED: "running",
  AWAITING_BRANCHES: "waiting",
  ERROR: "failed",
  OPEN: "failed",
  RESOLVED: "completed",
};

export function statusTone(status: string): string {
  return TONE[status] ?? status.toLowerCase();
}
