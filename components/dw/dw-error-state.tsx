"use client";

import { useTranslations } from "next-intl";
import type { ErrorInfo } from "@/lib/views/error-info";
import { Button } from "@/components/ui/button";

type Known =
  | "server_unavailable"
  | "unauthorized"
  | "forbidden"
  | "namespace_not_found"
  | "instance_not_found"
  | "run_not_found"
  | "malformed_response"
  | "version_mismatch"
  | "validation_failed";

const KNOWN = new Set<string>([
  "server_unavailable",
  "unauthorized",
  "forbidden",
  "namespace_not_found",
  "instance_not_found",
  "run_not_found",
  "malformed_response",
  "version_mismatch",
  "validation_failed",
]);

/** The same request would be refused again: the operator changes it instead of retrying it. */
const NOT_RETRIED = new Set<string>(["validation_failed"]);

/**
 * What went wrong and what to do about it, per failure reason: a down server, a bad token, a role
 * that may not read, an unknown namespace or id, a request the server refused as invalid (its field
 * messages listed, no retry). The server's own message is shown as text beneath.
 */
export function DwErrorState({ error, onRetry }: { error: ErrorInfo; onRetry?: () => void }) {
  const t = useTranslations("runs.errors");
  const key: Known | "other" = KNOWN.has(error.reason) ? (error.reason as Known) : "other";
  return (
    <section
      role="alert"
      data-testid="dw-error"
      data-reason={error.reason}
      className="rounded-lg border border-bad/40 bg-panel px-6 py-8"
    >
      <h2 className="text-base font-semibold text-bad">{t(`${key}.title`)}</h2>
      <p className="mt-2 max-w-2xl text-sm text-fg">{t(`${key}.action`, { namespace: error.namespace ?? "" })}</p>
      <p className="mt-3 font-mono text-xs break-all text-fg-muted">
        {error.httpStatus ? `HTTP ${error.httpStatus} · ` : ""}
        {error.message}
      </p>
      {error.fieldErrors && Object.keys(error.fieldErrors).length ? (
        <ul data-testid="dw-error-fields" className="mt-3 list-disc space-y-1 pl-5 text-sm break-words text-fg">
          {Object.entries(error.fieldErrors).flatMap(([field, messages]) =>
            messages.map((message) => (
              <li key={`${field}:${message}`}>
                <span className="font-mono">{field}</span>: {message}
              </li>
            )),
          )}
        </ul>
      ) : null}
      {onRetry && !NOT_RETRIED.has(error.reason) ? (
        <Button onClick={onRetry} className="mt-4">
          {t("retry")}
        </Button>
      ) : null}
    </section>
  );
}
