import * as z from "zod";
import type { Open } from "./enums";
import { ISO_INSTANT } from "./timestamps";

export { timestampToEpochMs } from "./timestamps";

/**
 * Building blocks shared by every endpoint schema. Browser-safe: zod only.
 */

/**
 * A string position where the server has a known vocabulary but may send new members.
 * Validates "is a string" and types the result as known-or-other.
 */
export function openEnum<T extends string>(known: readonly T[]): z.ZodType<Open<T>> {
  // `known` only drives the static type; unknown members must survive parsing.
  void known;
  return z.string() as unknown as z.ZodType<Open<T>>;
}

/**
 * ISO-8601 instants in both forms the server emits: Carbon `toJSON()`
 * (`2026-04-13T12:00:00.000000Z`) and `toIso8601String()` (`2026-04-13T12:00:00+00:00`).
 */
export const timestamp = z.string().regex(ISO_INSTANT, "expected an ISO-8601 timestamp");

/**
 * PHP renders an empty associative array as `[]`; accept it wherever a map is meant and
 * normalise to `{}` so consumers see one shape.
 */
export function phpMap<V extends z.ZodType>(value: V) {
  return z.preprocess(
    (input) => (Array.isArray(input) && input.length === 0 ? {} : input),
    z.record(z.string(), value),
  );
}

export const anyMap = phpMap(z.unknown());

/**
 * `memo`: the real start endpoint stores whatever JSON the caller sent, a list included, and
 * describe relays `$run->memo ?? []` (durable-workflow/server app/Http/Controllers/Api/
 * WorkflowController.php@11d35b7 `formatRun`; the export's `$run->typedMemos()`,
 * durable-workflow/workflow src/V2/Support/HistoryExport.php@8dc90d64). An empty list is still `{}`.
 */
export const memoValue = z.preprocess(
  (input) => (Array.isArray(input) && input.length === 0 ? {} : input),
  z.union([z.record(z.string(), z.unknown()), z.array(z.unknown())]),
);
export type MemoValue = z.infer<typeof memoValue>;

export const nullableString = z.string().nullable();
export const optionalString = z.string().nullish();
export const optionalTimestamp = timestamp.nullish();
export const optionalInt = z.number().int().nullish();
export const optionalNumber = z.number().nullish();
export const optionalBool = z.boolean().nullish();

/** `{codec, blob}` payload envelope; offloaded payloads carry `external_storage` instead of `blob`. */
export const payloadEnvelopeSchema = z.looseObject({
  codec: z.string(),
  blob: z.string().optional(),
  external_storage: z.unknown().optional(),
});
export type PayloadEnvelope = z.infer<typeof payloadEnvelopeSchema>;

/** The `control_plane` object on every `/workflows*` response (server-api.md §1.9). */
export const controlPlaneSchema = z.looseObject({
  schema: z.string().optional(),
  version: z.number().int().optional(),
  operation: z.string(),
  workflow_id: z.string().nullish(),
  contract: z
    .looseObject({
      schema: z.string().optional(),
      version: z.number().int().optional(),
      legacy_field_policy: z.string().optional(),
      legacy_fields: anyMap.optional(),
      required_fields: z.array(z.string()).optional(),
      success_fields: z.array(z.string()).optional(),
    })
    .optional(),
});
export type ControlPlaneEnvelope = z.infer<typeof controlPlaneSchema>;
