import { readiness } from "@/lib/server/process/readiness";

/**
 * Readiness (Kubernetes readinessProbe, a load balancer's health check): 200 when this console can
 * serve — configuration valid, Durable Workflow server answering, not draining — else 503. Liveness
 * is `/api/healthz`. The body names which check failed, never a URL or a secret.
 */
export async function GET(): Promise<Response> {
  const answer = await readiness();
  return Response.json(answer, { status: answer.ready ? 200 : 503, headers: { "cache-control": "no-store" } });
}

export const dynamic = "force-dynamic";
