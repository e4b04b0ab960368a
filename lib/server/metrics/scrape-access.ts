import "server-only";
import { createHash, timingSafeEqual } from "node:crypto";
import type { HeaderSource } from "@/lib/server/auth/principal";
import { forwardedPerson } from "@/lib/server/auth/principal";

/**
 * Who may read the console's Prometheus metrics (docs/decisions/0062): a scraper sending
 * `Authorization: Bearer <BREAKWATER_METRICS_TOKEN>` (compared in constant time, over digests so the
 * length does not show either), or a signed-in admin. A console without authentication answers on
 * loopback only and everyone there acts as admin, so there the metrics are open — unless a scrape
 * token is set, which then is required.
 */

export type ScrapeAccess = { ok: true } | { ok: false; status: 401 | 403; message: string };

function digest(text: string): Buffer {
  return createHash("sha256").update(text).digest();
}

export function tokenMatches(sent: string, expected: string): boolean {
  return timingSafeEqual(digest(sent), digest(expected));
}

function bearer(headers: HeaderSource): string | null {
  const value = headers.get("authorization");
  const match = value === null ? null : /^Bearer\s+(\S+)\s*$/i.exec(value);
  return match?.[1] ?? null;
}

export function scrapeAccess(
  headers: HeaderSource,
  settings: { authMode: string; token: string | undefined },
): ScrapeAccess {
  const expected = settings.token?.trim() || null;
  const sent = bearer(headers);
  if (expected !== null && sent !== null && tokenMatches(sent, expected)) return { ok: true };
  if (settings.authMode === "none") {
    if (expected === null) return { ok: true };
    return {
      ok: false,
      status: 401,
      message: "Send the scrape token: Authorization: Bearer <BREAKWATER_METRICS_TOKEN>.",
    };
  }
  const person = forwardedPerson(headers);
  if (person?.role === "admin") return { ok: true };
  if (person !== null) return { ok: false, status: 403, message: "Refused: the console's metrics are for admins." };
  return {
    ok: false,
    status: 401,
    message: "Sign in as an admin, or send the scrape token: Authorization: Bearer <BREAKWATER_METRICS_TOKEN>.",
  };
}
