"use client";

import { useTranslations } from "next-intl";
import { stackTraceView } from "@/lib/views/stack-trace";

/** An engine-written stack trace, collapsed under its first line; capped, text only (lib/views/stack-trace.ts). */
export function StackTrace({ trace, label }: { trace: string | null | undefined; label: string }) {
  const t = useTranslations("kikwiflow.incidents");
  const view = stackTraceView(trace);
  if (!view) return null;
  return (
    <details className="mt-2 text-xs" data-testid="kikwiflow-stack-trace">
      <summary className="cursor-pointer text-fg-muted">
        {t("stackTrace")}: <span className="font-mono break-all">{label}</span>
      </summary>
      <pre className="mt-1 max-h-64 max-w-full overflow-auto rounded border border-line bg-panel p-2 font-mono whitespace-pre">
        {view.shown}
      </pre>
      {view.hiddenLines > 0 ? <p className="text-fg-muted">{t("moreLines", { count: view.hiddenLines })}</p> : null}
    </details>
  );
}
