/**
 * Timestamps as the real server writes them, with no zod: browser code (lib/views) reads them here,
 * so a screen's bundle never constructs a zod schema (zod probes `new Function` when an object
 * schema is built, which the CSP reports as an eval violation).
 */
export const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2})$/;

/** Epoch ms of an ISO-8601 instant, or null when it is missing or not one. */
export function timestampToEpochMs(value: string | null | undefined): number | null {
  if (value == null || !ISO_INSTANT.test(value)) return null;
  // Date.parse is only specified for millisecond precision; trim microseconds first.
  const normalized = value.replace(/(\.\d{3})\d+/, "$1");
  const ms = Date.parse(normalized);
  return Number.isNaN(ms) ? null : ms;
}
