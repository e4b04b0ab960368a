"use client";

import { useTranslations } from "next-intl";
import { exportHref } from "@/lib/routes/route-for";

/**
 * "Download CSV · JSON" for a list with the screen's current filters: plain links to the streamed
 * export (app/api/export), so the browser's own download takes the file as it is written.
 */
export function ExportLinks({
  list,
  namespace,
  filters,
  testId = `export-${list}`,
}: {
  list: "runs" | "failures" | "schedules";
  namespace: string;
  filters: Readonly<Record<string, string>>;
  testId?: string;
}) {
  const t = useTranslations("export");
  return (
    <span className="inline-flex flex-wrap items-center gap-2 text-xs" data-testid={testId}>
      {(["csv", "json"] as const).map((format) => (
        <a
          key={format}
          href={exportHref(list, namespace, format, filters)}
          download
          data-format={format}
          title={t("title")}
          className="inline-flex h-7 items-center rounded-md border border-line bg-panel px-2 font-medium text-fg hover:bg-panel-muted focus-visible:outline-2 focus-visible:outline-accent"
        >
          {t(format)}
        </a>
      ))}
    </span>
  );
}
