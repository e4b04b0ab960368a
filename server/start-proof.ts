import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { connect } from "node:net";
import type { FastifyInstance } from "fastify";

/**
 * Proof that the server answering on the embedded port is the child `npm start` spawned, before the
 * console is handed the admin token (docs/decisions/0043). `scripts/start.ts` gives the child a
 * random nonce in DW_EMBEDDED_START_NONCE; the child answers a challenge sent on `/api/health` with
 * HMAC-SHA256(nonce, challenge). A squatter on the port never saw the nonce, and no secret crosses
 * the wire, so asking cannot leak anything to it.
 */

export const START_NONCE_VARIABLE = "DW_EMBEDDED_START_NONCE";
export const CHALLENGE_HEADER = "x-breakwater-start-challenge";
export const PROOF_HEADER = "x-breakwater-start-proof";

export function newStartNonce(): string {
  return randomBytes(32).toString("base64url");
}

export function startProof(nonce: string, challenge: string): string {
  return createHmac("sha256", nonce).update(challenge).digest("base64url");
}

/** Adds the proof header to `/api/health` answers that carry a challenge (server side). */
export function installStartProof(app: FastifyInstance, nonce: string): void {
  app.addHook("onSend", async (request, reply, payload) => {
    const challenge = request.headers[CHALLENGE_HEADER];
    if (request.url === "/api/health" && typeof challenge === "string" && challenge.length <= 256)
      reply.header(PROOF_HEADER, startProof(nonce, challenge));
    return payload;
  });
}

export type StartCheck = { ok: true } | { ok: false; reason: string };

/**
 * Asks `baseUrl` to prove it holds `nonce`: a fresh challenge each call, so an earlier answer
 * cannot be replayed. Anything but a healthy answer with the right proof is a refusal.
 */
export async function checkEmbeddedServer(baseUrl: string, nonce: string): Promise<StartCheck> {
  const challenge = randomBytes(32).toString("base64url");
  let res: Response;
  try {
    res = await fetch(`${baseUrl}/api/health`, { headers: { [CHALLENGE_HEADER]: challenge } });
  } catch (e) {
    return { ok: false, reason: `${baseUrl} did not answer (${String(e)})` };
  }
  await res.body?.cancel();
  if (!res.ok) return { ok: false, reason: `${baseUrl}/api/health answered ${res.status}` };
  const proof = Buffer.from(res.headers.get(PROOF_HEADER) ?? "");
  const expected = Buffer.from(startProof(nonce, challenge));
  if (proof.length !== expected.length || !timingSafeEqual(proof, expected))
    return { ok: false, reason: `the server answering ${baseUrl} is not the one this start spawned` };
  return { ok: true };
}

/** Whether something already accepts TCP connections on host:port (checked before spawning). */
export function portAcceptsConnections(port: number, host = "127.0.0.1"): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ port, host });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}
