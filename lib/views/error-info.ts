import type { DwErrorReason } from "@/lib/dw/errors";
import { DwValidationError, isDwError } from "@/lib/dw/errors";

/**
 * A DW client failure reduced to plain data, so a server component can hand it to a client
 * component and both render the same actionable state.
 */
export interface ErrorInfo {
  reason: DwErrorReason | "unknown";
  httpStatus: number | null;
  message: string;
  /** For namespace_not_found: the namespace the server did not know. */
  namespace: string | null;
  /** For validation_failed (422): the server's messages per request field, e.g. `query`. */
  fieldErrors?: Record<string, string[]>;
}

export function toErrorInfo(error: unknown): ErrorInfo {
  if (isDwError(error)) {
    const namespace = "namespace" in error && typeof error.namespace === "string" ? error.namespace : null;
    const fieldErrors = error instanceof DwValidationError ? { fieldErrors: error.errors } : {};
    return { reason: error.reason, httpStatus: error.httpStatus, message: error.message, namespace, ...fieldErrors };
  }
  return {
    reason: "unknown",
    httpStatus: null,
    message: error instanceof Error ? error.message : String(error),
    namespace: null,
  };
}
