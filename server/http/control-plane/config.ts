import type { ExportSigning } from "../../read/export";
import type { AuthConfig } from "../auth";
import { authConfigFromEnv } from "../auth";
import type { RoleTokens } from "../embedded-tokens";
import { loadOrCreateTokens, tokensFilePath } from "../embedded-tokens";

export const TOKEN_VARIABLES = ["DW_WORKER_TOKEN", "DW_OPERATOR_TOKEN", "DW_ADMIN_TOKEN", "DW_AUTH_TOKEN"] as const;

export type EmbeddedAuth =
  /** DW_AUTH_DRIVER and/or token variables decide, as on the real server. */
  | { source: "env"; auth: AuthConfig }
  /** Nothing configured: the `token` driver with the per-data-file tokens (docs/decisions/0043). */
  | { source: "file"; auth: AuthConfig; tokens: RoleTokens; path: string; created: boolean };

/**
 * The embedded server's auth: `DW_AUTH_DRIVER` when set (none | token); otherwise `token` with the
 * token variables when any of DW_WORKER_TOKEN / DW_OPERATOR_TOKEN / DW_ADMIN_TOKEN / DW_AUTH_TOKEN
 * is set; and when nothing is, `token` with the tokens kept beside `dataFile` (made on first start),
 * so no local process gets admin just by asking. `none` is had only by asking for it.
 */
export function embeddedAuthFromEnv(dataFile: string, env: NodeJS.ProcessEnv = process.env): EmbeddedAuth {
  const anyToken = TOKEN_VARIABLES.some((k) => (env[k] ?? "").trim() !== "");
  const explicit = (env.DW_AUTH_DRIVER ?? "").trim();
  if (explicit !== "" || anyToken)
    return { source: "env", auth: authConfigFromEnv({ ...env, DW_AUTH_DRIVER: explicit !== "" ? explicit : "token" }) };
  const path = tokensFilePath(dataFile);
  const { tokens, created } = loadOrCreateTokens(path);
  const auth = authConfigFromEnv({
    ...env,
    DW_AUTH_DRIVER: "token",
    DW_WORKER_TOKEN: tokens.worker,
    DW_OPERATOR_TOKEN: tokens.operator,
    DW_ADMIN_TOKEN: tokens.admin,
  });
  return { source: "file", auth, tokens, path, created };
}

/** DW_V2_HISTORY_EXPORT_SIGNING_KEY (and optional DW_V2_HISTORY_EXPORT_SIGNING_KEY_ID) sign export bundles. */
export function exportSigningFromEnv(env: NodeJS.ProcessEnv = process.env): ExportSigning | null {
  const key = (env.DW_V2_HISTORY_EXPORT_SIGNING_KEY ?? "").trim();
  if (key === "") return null;
  const keyId = (env.DW_V2_HISTORY_EXPORT_SIGNING_KEY_ID ?? "").trim();
  return { key, keyId: keyId === "" ? null : keyId };
}
