import { isoMicros } from "../clock";

export { isoMicros };

/** `toIso8601String()` form (`2026-01-15T10:00:00+00:00`) that some real-server fields use. */
export function isoOffset(ms: number | null | undefined): string | null {
  if (ms === null || ms === undefined) return null;
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, "+00:00");
}

export type Json = Record<string, unknown>;

export function parseObject(text: string | null | undefined): Json | null {
  if (!text) return null;
  try {
    const v: unknown = JSON.parse(text);
    return v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Json) : null;
  } catch {
    return null;
  }
}

export function parseArray(text: string | null | undefined): unknown[] | null {
  if (!text) return null;
  try {
    const v: unknown = JSON.parse(text);
    return Array.isArray(v) ? v : null;
  } catch {
    return null;
  }
}

/** Drops null, undefined and empty-array values: the debug endpoint's `compact()` convention. */
export function compact(obj: Json): Json {
  const out: Json = {};
  for (const [k, v] of Object.entries(obj)) {
    if (v === null || v === undefined) continue;
    if (Array.isArray(v) && v.length === 0) continue;
    out[k] = v;
  }
  return out;
}

export function str(v: unknown): string | null {
  return typeof v === "string" ? v : null;
}

export function num(v: unknown): number | null {
  return typeof v === "number" ? v : null;
}

/**
 * A stored memo as the real server echoes it: `$run->memo ?? []` (WorkflowController::formatRun,
 * durable-workflow/server@11d35b7) — a map, or the list the start endpoint accepted.
 */
export function memoValue(text: string | null | undefined): Json | unknown[] {
  return parseArray(text) ?? parseObject(text) ?? {};
}
