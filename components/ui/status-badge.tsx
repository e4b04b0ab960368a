import type { ReactNode } from "react";
import { useTranslations } from "next-intl";

const TONES: Readonly<Record<string, string>> = {
  running: "bg-accent-soft text-accent",
  pending: "bg-accent-soft text-accent",
  waiting: "bg-accent-soft text-accent",
  completed: "bg-ok/15 text-ok",
  failed: "bg-bad/15 text-bad",
  timed_out: "bg-bad/15 text-bad",
  expired: "bg-warn/15 text-warn",
  cancelled: "bg-warn/15 text-warn",
  terminated: "bg-warn/15 text-warn",
  continued: "bg-panel-muted text-fg-muted",
  // A command's status (the Commands tab): the server took it, or refused it.
  accepted: "bg-panel-muted text-fg-muted",
  rejected: "bg-warn/15 text-warn",
};

/** The statuses the catalogs have a word for (`codes.status`); any other stays the server's code. */
const WORDED = new Set([
  "pending",
  "running",
  "waiting",
  "completed",
  "failed",
  "cancelled",
  "terminated",
  "timed_out",
  "continued",
  "expired",
  "accepted",
  "rejected",
]);

/**
 * A server status as a word of the operator's language (English keeps the code's own word, "timed
 * out" for `timed_out`), coloured by what it means; an unknown status is shown as sent. The code
 * stays in `data-status` for styling and tests.
 */
export function StatusBadge({ status, children }: { status: string; children?: ReactNode }) {
  const t = useTranslations("codes.status");
  return (
    <span
      data-status={status}
      className={`inline-flex items-center gap-1 rounded px-1.5 py-0.5 text-xs font-medium whitespace-nowrap ${TONES[status] ?? "bg-panel-muted text-fg-muted"}`}
    >
      {children ?? (WORDED.has(status) ? t(status as Parameters<typeof t>[0]) : status)}
    </span>
  );
}

export function Pill({
  tone,
  children,
  testId,
}: {
  tone: "danger" | "warning" | "neutral" | "info" | "success";
  children: ReactNode;
  testId?: string;
}) {
  const classes = {
    danger: "bg-bad/15 text-bad border-bad/30",
    warning: "bg-warn/15 text-warn border-warn/30",
    neutral: "bg-panel-muted text-fg-muted border-line",
    info: "bg-accent-soft text-accent border-accent/30",
    success: "bg-ok/15 text-ok border-ok/30",
  }[tone];
  return (
    <span
      data-testid={testId}
      className={`inline-flex items-center rounded border px-1.5 py-0.5 text-xs font-semibold whitespace-nowrap ${classes}`}
    >
      {children}
    </span>
  );
}
