import type { ReactNode } from "react";

export function EmptyState({ title, children, action }: { title: string; children?: ReactNode; action?: ReactNode }) {
  return (
    <section
      aria-label={title}
      className="flex flex-col items-center rounded-lg border border-dashed border-line bg-panel px-6 py-16 text-center"
    >
      <h2 className="text-base font-semibold text-fg">{title}</h2>
      {children ? <div className="mt-2 max-w-md text-sm text-fg-muted">{children}</div> : null}
      {action ? <div className="mt-5">{action}</div> : null}
    </section>
  );
}
