import "server-only";
import { SIGNATURE_HEADER, requestSignature } from "@/lib/dw/signature";
import type { ConsoleConfig } from "@/lib/server/process/config";

/**
 * The credential headers for one call to the Durable Workflow server, by DW_AUTH_DRIVER: a bearer
 * token, or `X-Signature` over exactly the body bytes sent (`""` for a GET), or nothing.
 */
export async function credentialHeaders(
  config: Pick<ConsoleConfig, "dwAuth">,
  token: string | null,
  body: string,
): Promise<Record<string, string>> {
  switch (config.dwAuth.driver) {
    case "none":
      return {};
    case "signature":
      return { [SIGNATURE_HEADER]: await requestSignature(config.dwAuth.signatureKey, body) };
    default:
      return token ? { Authorization: `Bearer ${token}` } : {};
  }
}
