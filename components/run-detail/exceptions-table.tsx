"use client";

import { Fragment, useState } from "react";
import { useTranslations } from "next-intl";
import type { ExceptionRow } from "@/lib/views/exceptions";
import { Pill } from "@/components/ui/status-badge";
import { useTimeFormat } from "@/components/hooks/use-time-format";
import { ShowMore, useShownRows } from "@/components/ui/show-more";
import { Muted, Section, TD, TH } from "@/components/run-detail/section";

/**
 * The Waterline v2 Exceptions table: Activity, Type, Category (`failure_category` or `-`, with a
 * non-retryable badge), message, handled, logged at. A row expands to class, message, file:line and
 * the trace, all as text.
 */
export function ExceptionsTable({ rows, complete }: { rows: readonly ExceptionRow[]; complete: boolean }) {
  const t = useTranslations("run.exceptions");
  const time = useTimeFormat();
  const [open, setOpen] = useState<ReadonlySet<string>>(new Set());
  // A run with hundreds of failures would otherwise lay out thousands of cells at once.
  const { shown, more, hidden } = useShownRows(rows);
  const toggle = (id: string) =>
    setOpen((current) => {
      const next = new Set(current);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });

  return (
    <Section
      title={t("title", { count: rows.length })}
      testId="exceptions"
      actions={complete ? null : <span className="text-xs text-fg-muted">{t("partial")}</span>}
    >
      {rows.length === 0 ? (
        <Muted>{t("none")}</Muted>
      ) : (
        <div className="overflow-x-auto">
          <table className="w-full text-sm" data-testid="exceptions-table">
            <thead className="border-b border-line">
              <tr>
                <th className={TH}>
                  <span className="sr-only">{t("expand")}</span>
                </th>
                <th className={TH}>{t("activity")}</th>
                <th className={TH}>{t("type")}</th>
                <th className={TH}>{t("category")}</th>
                <th className={TH}>{t("message")}</th>
                <th className={TH}>{t("handled")}</th>
                <th className={TH}>{t("loggedAt")}</th>
              </tr>
            </thead>
            <tbody>
              {shown.map((row) => {
                const expanded = open.has(row.id);
                return (
                  <Fragment key={row.id}>
                    <tr className="border-b border-line" data-testid="exception-row">
                      <td className={TD}>
                        <button
                          type="button"
                          aria-expanded={expanded}
                          aria-label={expanded ? t("collapse") : t("expand")}
                          onClick={() => toggle(row.id)}
                          className="w-6 rounded border border-line text-xs text-fg-muted hover:bg-panel-muted"
                        >
                          {expanded ? "−" : "+"}
                        </button>
                      </td>
                      <td className={TD}>
                        {row.activity ?? (
                          <span className="font-mono text-xs text-fg-muted">{row.sourceKind ?? "–"}</span>
                        )}
                      </td>
                      <td className={`${TD} font-mono text-xs`}>{row.type ?? "–"}</td>
                      <td className={TD} data-testid="exception-category">
                        <span className="inline-flex flex-wrap items-center gap-1">
                          <span>{row.category}</span>
                          {row.nonRetryable ? (
                            <Pill tone="warning" testId="non-retryable-badge">
                              {t("nonRetryable")}
                            </Pill>
                          ) : null}
                        </span>
                      </td>
                      <td className={`${TD} max-w-md break-words`}>{row.message}</td>
                      <td className={TD}>{row.handled ? t("yes") : t("no")}</td>
                      <td className={`${TD} whitespace-nowrap`}>{time.dateTime(row.loggedAt)}</td>
                    </tr>
                    {expanded ? (
                      <tr className="border-b border-line bg-panel-muted/50">
                        <td />
                        <td colSpan={6} className="px-2 py-3" data-testid="exception-detail">
                          <dl className="grid grid-cols-[max-content_1fr] gap-x-4 gap-y-1 text-xs">
                            <dt className="text-fg-muted">{t("class")}</dt>
                            <dd className="font-mono break-all">{row.detail.exceptionClass ?? "–"}</dd>
                            {row.detail.resolvedClass ? (
                              <>
                                <dt className="text-fg-muted">{t("resolved")}</dt>
                                <dd className="font-mono break-all">
                                  {row.detail.resolvedClass}{" "}
                                  {row.detail.resolutionSource ? `(${row.detail.resolutionSource})` : ""}
                                </dd>
                              </>
                            ) : null}
                            <dt className="text-fg-muted">{t("message")}</dt>
                            <dd className="break-words whitespace-pre-wrap">{row.detail.message || "–"}</dd>
                            <dt className="text-fg-muted">{t("location")}</dt>
                            <dd className="font-mono break-all">{row.detail.location ?? "–"}</dd>
                            <dt className="text-fg-muted">{t("source")}</dt>
                            <dd className="font-mono break-all">
                              {[row.sourceKind, row.sourceId, row.propagationKind].filter(Boolean).join(" · ") || "–"}
                            </dd>
                            {row.detail.replayBlocked ? (
                              <>
                                <dt className="text-fg-muted">{t("replay")}</dt>
                                <dd className="text-bad">{t("replayBlocked")}</dd>
                              </>
                            ) : null}
                          </dl>
                          <p className="mt-3 text-xs font-semibold text-fg-muted">{t("trace")}</p>
                          <pre className="mt-1 max-h-64 overflow-auto rounded border border-line bg-panel p-2 font-mono text-xs whitespace-pre-wrap">
                            {row.detail.traceLines.length > 0 ? row.detail.traceLines.join("\n") : t("noTrace")}
                          </pre>
                        </td>
                      </tr>
                    ) : null}
                  </Fragment>
                );
              })}
            </tbody>
          </table>
          <ShowMore hidden={hidden} onMore={more} testId="exceptions-show-more" />
        </div>
      )}
    </Section>
  );
}
