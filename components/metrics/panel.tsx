"use client";

import Link from "@/components/ui/link";
import type { ReactNode } from "react";
import { useTranslations } from "next-intl";
import { isDwError } from "@/lib/dw/errors";

/** The server refused the console's token for this route (system routes need admin). */
export function isForbidden(error: unknown): boolean {
  return isDwError(error) && (error.reason === "forbidden" || error.httpStatus === 403);
}

export function Panel({ title, children, testId }: { title: string; children: ReactNode; testId?: string }) {
  return (
    <section aria-label={title} data-testid={testId} className="rounded-lg border border-line bg-panel p-4">
      <h2 className="mb-3 text-sm font-semibold tracking-wide text-fg-muted uppercase">{title}</h2>
      {children}
    </section>
  );
}

export function Stat({
  label,
  value,
  tone,
  hint,
  href,
}: {
  label: string;
  value: number | string;
  tone?: "bad" | "warn" | "ok";
  hint?: string;
  /** The list behind the number: an operator who sees "Failed 20" wants those 20 runs. */
  href?: string;
}) {
  const color = tone === "bad" ? "text-bad" : tone === "warn" ? "text-warn" : tone === "ok" ? "text-ok" : "text-fg";
  return (
    <div className="min-w-0">
      <dt className="text-xs text-fg-muted">{label}</dt>
      <dd className={`text-2xl font-semibold tabular-nums ${color}`}>
        {href ? (
          <Link
            href={href}
            aria-label={`${label}: ${value}`}
            className="rounded-sm underline decoration-line decoration-2 underline-offset-4 hover:decoration-current focus-visible:outline-2 focus-visible:outline-accent"
          >
            {value}
          </Link>
        ) : (
          value
        )}
      </dd>
      {hint ? <dd className="text-xs text-fg-muted">{hint}</dd> : null}
    </div>
  );
}

/** "Requires admin": the system routes refuse operator tokens (server-api §1.2); say so, don't fail. */
export function RequiresAdmin({ what }: { what: string }) {
  const t = useTranslations("overview");
  return (
    <p data-testid="requires-admin" className="rounded-md bg-panel-muted px-3 py-2 text-sm text-fg-muted">
      {t("requiresAdmin", { what })}
    </p>
  );
}
