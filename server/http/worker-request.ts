import type { FastifyRequest } from "fastify";
import type { z } from "zod";
import { validationError } from "../engine/errors";

// Request helpers shared by the worker plane's route modules.

/** The body parsed by `schema`, or the engine's 422 listing every issue by its path. */
export function parse<T>(schema: z.ZodType<T>, body: unknown): T {
  const r = schema.safeParse(body ?? {});
  if (r.success) return r.data;
  const errors: Record<string, string[]> = {};
  for (const issue of r.error.issues) {
    const key = issue.path.join(".") || "body";
    errors[key] = [...(errors[key] ?? []), issue.message];
  }
  throw validationError(errors);
}

/** The request's namespace: `X-Namespace`, then `?namespace=`, then DW_DEFAULT_NAMESPACE, lowercased. */
export function namespaceOf(request: FastifyRequest): string {
  const header = request.headers["x-namespace"];
  const fromHeader = Array.isArray(header) ? header[0] : header;
  const query = (request.query as Record<string, unknown> | undefined)?.namespace;
  const raw =
    fromHeader ?? (typeof query === "string" ? query : undefined) ?? process.env.DW_DEFAULT_NAMESPACE ?? "default";
  return raw.trim().toLowerCase();
}
