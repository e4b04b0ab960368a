/**
 * Public surface of the typed Durable Workflow client (server-api.md §1–§7).
 *
 * - `createDwClient` — one fetch wrapper: auth, namespace, control-plane version header, gzip,
 *   timeouts combined with a caller AbortSignal, URL-encoded path ids, typed errors.
 * - zod schemas per endpoint (open to unknown fields and enum members; `[]` accepted for maps;
 *   both timestamp forms) and their inferred types.
 * - Typed errors keyed by `reason` (errors.ts); 409 command rejections are `CommandResult`s.
 * - Payload codec decoding (codec.ts).
 *
 * Bundle weight: in a browser bundle this barrel is mostly the codec (avsc types + the `buffer`
 * polyfill) and zod with the schemas. Browser code therefore imports neither: it uses `@/lib/dw/transport` with the pass-through
 * decoders of `@/lib/dw/prevalidated` (the console's read proxy validates every body with the
 * schemas server-side), `@/lib/dw/errors`, `@/lib/dw/enums`, and `import type` for the rest.
 */

export * from "./enums";
export * from "./errors";
export {
  timestamp,
  timestampToEpochMs,
  payloadEnvelopeSchema,
  controlPlaneSchema,
  type PayloadEnvelope,
  type ControlPlaneEnvelope,
} from "./schema-kit";
export * from "./schemas-workflows";
export * from "./schemas-export";
export * from "./schemas-fleet";
export * from "./schemas-system";
export * from "./schemas-query";
export * from "./endpoints";
export * from "./client";
export * from "./codec";
