"use client";

import type { ReactNode } from "react";
import { useTranslations } from "next-intl";
import type { ErrorInfo } from "@/lib/views/error-info";
import { toErrorInfo } from "@/lib/views/error-info";
import { DwErrorState } from "@/components/dw/dw-error-state";

/** A thrown error, or an ErrorInfo a server page already made of one. */
function errorInfo(error: unknown): ErrorInfo {
  // A thrown DwError also has `reason` and `httpStatus`, but its details (a 422's field errors) need mapping.
  if (error instanceof Error) return toErrorInfo(error);
  const known = error as Partial<ErrorInfo> | null;
  if (known && typeof known === "object" && typeof known.reason === "string" && "httpStatus" in known)
    return known as ErrorInfo;
  return toErrorInfo(error);
}

/** The parts of a TanStack query (or of a screen's own state) a QueryState reads; `error` may be an ErrorInfo. */
export interface QueryLike<T> {
  data: T | undefined;
  error: unknown;
  refetch?: () => unknown;
}

export interface QueryStateProps<T> {
  query: QueryLike<T>;
  /** True when the data holds nothing to show. */
  isEmpty?: (data: T) => boolean;
  /** Shown when `isEmpty` says so; without it the children render anyway. */
  empty?: ReactNode;
  /** Shown while nothing has loaded yet (default: a quiet "Loading…"). */
  loading?: ReactNode;
  /** An error shown instead of the default DwErrorState, e.g. "requires admin" on a 403; undefined falls back. */
  renderError?: (error: unknown) => ReactNode | undefined;
  /** Say so above the last data when a refresh failed (default true). */
  showStale?: boolean;
  children: (data: T) => ReactNode;
}

/**
 * One way every screen shows a query: loading until the first data, the DwErrorState (with retry) when
 * it failed with nothing to show, the empty state, and, when a refresh fails over data already shown,
 * the last data with a note that it is stale.
 */
export function QueryState<T>({
  query,
  isEmpty,
  empty,
  loading,
  renderError,
  showStale = true,
  children,
}: QueryStateProps<T>) {
  const t = useTranslations("ui");
  const retry = query.refetch ? () => void query.refetch?.() : undefined;
  if (query.data === undefined) {
    if (query.error)
      return renderError?.(query.error) ?? <DwErrorState error={errorInfo(query.error)} onRetry={retry} />;
    return loading ?? <p className="text-sm text-fg-muted">{t("loading")}</p>;
  }
  if (empty !== undefined && isEmpty?.(query.data)) return <>{empty}</>;
  return (
    <>
      {query.error && showStale ? (
        <p className="mb-2 text-xs text-bad" data-testid="query-stale">
          {t("refreshFailed", { message: errorInfo(query.error).message })}
        </p>
      ) : null}
      {children(query.data)}
    </>
  );
}
