"use client";

import { Button } from "@/components/ui/button";

/** A bulk panel's title and its Close (which stops whatever the runner has in flight). */
export function BulkPanelHeader({
  heading: Heading,
  title,
  closeLabel,
  onClose,
}: {
  /** The runs list's panel is a section of its own (h2); the group panels sit under a group (h4). */
  heading: "h2" | "h4";
  title: string;
  closeLabel: string;
  onClose: () => void;
}) {
  return (
    <div className="flex items-center justify-between">
      <Heading className="font-semibold">{title}</Heading>
      <Button variant="link" onClick={onClose} className="text-xs text-fg-muted underline">
        {closeLabel}
      </Button>
    </div>
  );
}

/** The sends so far, as text and a bar. */
export function BulkProgress({
  progress,
  text,
  label,
  className,
}: {
  progress: { sent: number; total: number };
  text: string;
  label: string;
  className?: string;
}) {
  return (
    <div data-testid="bulk-progress" className={className}>
      <p>{text}</p>
      <progress max={progress.total || 1} value={progress.sent} className="w-full" aria-label={label} />
    </div>
  );
}
