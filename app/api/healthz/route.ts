/** Liveness of the console process itself (load balancers, Playwright); it does not call the DW server. */
export function GET(): Response {
  return Response.json({ ok: true }, { headers: { "cache-control": "no-store" } });
}

export const dynamic = "force-dynamic";
