import type { ExportSigning } from "../../read/export";
import type { AuthConfig } from "../auth";
import { authConfigFromEnv } from "../auth";

/**
 * The embedded server's auth: `DW_AUTH_DRIVER` when set (none | token); otherwise `token` as soon
 * as any of DW_WORKER_TOKEN / DW_OPERATOR_TOKEN / DW_ADMIN_TOKEN / DW_AUTH_TOKEN is set, and `none`
 * when none is — a fresh local start works without secrets, and configuring a token can never
 * leave the server silently open (docs/decisions/0004-embedded-auth-default.md).
 */
export function embeddedAuthFromEnv(env: NodeJS.ProcessEnv = process.env): AuthConfig {
  const anyToken = ["DW_WORKER_TOKEN", "DW_OPERATOR_TOKEN", "DW_ADMIN_TOKEN", "DW_AUTH_TOKEN"].some(
    (k) => (env[k] ?? "").trim() !== "",
  );
  const explicit = (env.DW_AUTH_DRIVER ?? "").trim();
  return authConfigFromEnv({ ...env, DW_AUTH_DRIVER: explicit !== "" ? explicit : anyToken ? "token" : "none" });
}

/** DW_V2_HISTORY_EXPORT_SIGNING_KEY (and optional DW_V2_HISTORY_EXPORT_SIGNING_KEY_ID) sign export bundles. */
export function exportSigningFromEnv(env: NodeJS.ProcessEnv = process.env): ExportSigning | null {
  const key = (env.DW_V2_HISTORY_EXPORT_SIGNING_KEY ?? "").trim();
  if (key === "") return null;
  const keyId = (env.DW_V2_HISTORY_EXPORT_SIGNING_KEY_ID ?? "").trim();
  return { key, keyId: keyId === "" ? null : keyId };
}
