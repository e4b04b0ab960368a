import type { z } from "zod";
import { workflowQueryRequestSchema } from "./schemas-query";
import { RESPONSE_SCHEMAS } from "./schemas-responses";
import { createDwCommandClientWith } from "./commands";
import type { DwCommandClient } from "./commands";
import type { Decoded, Decoder, DwClientOptions, DwDecoders } from "./transport";

export * from "./transport";
export * from "./commands";
export { errorFromResponse } from "./errors";

/** `$.a[0].b` for the first issue, so a malformed response names the field that broke. */
export function issuePathOf(issue: z.core.$ZodIssue | undefined): string {
  if (!issue) return "$";
  return issue.path.reduce<string>(
    (acc, key) => (typeof key === "number" ? `${acc}[${key}]` : `${acc}.${String(key)}`),
    "$",
  );
}

/** Validates with a zod schema; a failure names the first offending field. */
export function zodDecoder<S extends z.ZodType>(schema: S): Decoder<z.infer<S>> {
  return (json): Decoded<z.infer<S>> => {
    const result = schema.safeParse(json);
    if (result.success) return { ok: true, value: result.data };
    const issue = result.error.issues[0];
    return { ok: false, issuePath: issuePathOf(issue), message: issue?.message ?? "invalid", cause: result.error };
  };
}

/** Every response shape checked against its zod schema (server-api.md §1–§7), one per RESPONSE_SCHEMAS entry. */
export const SCHEMA_DECODERS = Object.fromEntries(
  Object.entries(RESPONSE_SCHEMAS).map(([name, schema]) => [name, zodDecoder(schema)]),
) as unknown as DwDecoders;

/** The body schema of each POST that reads (endpoints.ts `request`), checked before it is forwarded. */
export const REQUEST_SCHEMAS = {
  workflowQuery: zodDecoder(workflowQueryRequestSchema),
} as const;

/** The client that validates every response body, with the commands: for the console server. */
export function createDwClient(options: DwClientOptions): DwCommandClient {
  return createDwCommandClientWith(SCHEMA_DECODERS, options);
}
