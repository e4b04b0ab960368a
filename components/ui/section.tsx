import type { ReactNode } from "react";
import { elementTiming } from "@/components/ui/element-timing";

export function Section({
  title,
  actions,
  children,
  testId,
  timing,
}: {
  title: string;
  actions?: ReactNode;
  children: ReactNode;
  testId?: string;
  /** Reports when the title is painted (components/ui/element-timing.ts). */
  timing?: Parameters<typeof elementTiming>[0];
}) {
  return (
    <section aria-label={title} data-testid={testId} className="rounded-lg border border-line bg-panel">
      <header className="flex flex-wrap items-center gap-2 border-b border-line px-4 py-2">
        <h2 className="text-sm font-semibold text-fg" {...(timing ? elementTiming(timing) : {})}>
          {title}
        </h2>
        <div className="ml-auto flex flex-wrap items-center gap-2">{actions}</div>
      </header>
      <div className="p-4">{children}</div>
    </section>
  );
}

export function Muted({ children }: { children: ReactNode }) {
  return <p className="text-sm text-fg-muted">{children}</p>;
}
