import "server-only";
import type { DwDecoders } from "@/lib/dw/client";
import { REQUEST_SCHEMAS, SCHEMA_DECODERS } from "@/lib/dw/client";
import type { Decoder } from "@/lib/dw/transport";
import type { EndpointSpec } from "@/lib/dw/endpoints";

/**
 * Which contract a proxied read answers with, from its entry in lib/dw/endpoints.ts. The read proxy
 * is the console's boundary with the DW server, so bodies are validated here with the zod schemas and
 * browser code only maps errors (lib/dw/prevalidated.ts). `statuses` are the answers that carry that
 * body: the probes also send it with 503.
 */
export interface ResponseContract {
  decoder: DwDecoders[keyof DwDecoders];
  statuses: readonly number[];
}

/** Null for an entry relayed as the server sent it (no screen parses it) or streamed (the export). */
export function responseContract(spec: EndpointSpec): ResponseContract | null {
  if (spec.proxy !== "validated" || spec.response === null) return null;
  return { decoder: SCHEMA_DECODERS[spec.response], statuses: spec.statuses };
}

/** The body check of a POST that reads; null for an entry that takes no body. */
export function requestDecoder(spec: EndpointSpec): Decoder<unknown> | null {
  return spec.request === undefined ? null : REQUEST_SCHEMAS[spec.request];
}
