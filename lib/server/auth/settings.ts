import { z } from "zod";
import type { RoleGroupRule } from "./roles";
import { parseRoleGroups } from "./roles";
import type { TrustedProxies } from "./trusted-proxies";
import { parseTrustedProxies } from "./trusted-proxies";

/** `BREAKWATER_AUTH` and its companions, validated at start-up with the rest of the configuration. */

export type AuthMode = "none" | "proxy" | "password";

export interface ProxyAuthSettings {
  trustedProxies: TrustedProxies;
  userHeader: string;
  emailHeader: string;
  groupsHeader: string;
  /**
   * Repeated groups-header lines read as one list (BREAKWATER_PROXY_REPEATED_GROUPS=join) instead of
   * refused: oauth2-proxy as a reverse proxy sends one `X-Forwarded-Groups` line per group, after
   * deleting any the client sent (docs/deployment.md). The user and email headers stay refused when repeated.
   */
  joinRepeatedGroups: boolean;
  roleGroups: RoleGroupRule[];
}

export interface PasswordAuthSettings {
  usersFile: string;
  /** Never logged or echoed. */
  sessionSecret: string;
  sessionTtlSeconds: number;
}

export type AuthSettings =
  { mode: "none" } | ({ mode: "proxy" } & ProxyAuthSettings) | ({ mode: "password" } & PasswordAuthSettings);

export interface AuthProblem {
  variable: string;
  message: string;
  /** Absent for secrets. */
  value?: string;
}

export const DEFAULT_SESSION_TTL_SECONDS = 8 * 60 * 60;
const MIN_SECRET_LENGTH = 32;

const headerName = z
  .string()
  .trim()
  .toLowerCase()
  .regex(/^[a-z0-9-]{1,100}$/, "must be an HTTP header name");

const AuthEnvSchema = z.object({
  BREAKWATER_AUTH: z.enum(["", "none", "proxy", "password"]).optional(),
  BREAKWATER_TRUSTED_PROXIES: z.string().optional(),
  BREAKWATER_PROXY_USER_HEADER: headerName.optional(),
  BREAKWATER_PROXY_EMAIL_HEADER: headerName.optional(),
  BREAKWATER_PROXY_GROUPS_HEADER: headerName.optional(),
  BREAKWATER_PROXY_REPEATED_GROUPS: z.enum(["", "refuse", "join"]).optional(),
  BREAKWATER_ROLE_GROUPS: z.string().optional(),
  BREAKWATER_USERS_FILE: z.string().trim().optional(),
  BREAKWATER_SESSION_SECRET: z.string().optional(),
  BREAKWATER_SESSION_TTL_SECONDS: z
    .string()
    .trim()
    .regex(/^\d+$/, "must be a whole number of seconds")
    .transform(Number)
    .refine((value) => value >= 60 && value <= 30 * 24 * 3600, "must be between 60 and 2592000")
    .optional(),
});

const SECRET = new Set(["BREAKWATER_SESSION_SECRET"]);

/** Pure: tests pass their own map. Returns the settings or every problem found. */
export function parseAuthSettings(
  env: Record<string, string | undefined>,
): { settings: AuthSettings } | { problems: AuthProblem[] } {
  const result = AuthEnvSchema.safeParse(env);
  if (!result.success) {
    return {
      problems: result.error.issues.map((issue) => {
        const variable = String(issue.path[0] ?? "environment");
        return { variable, message: issue.message, value: SECRET.has(variable) ? undefined : env[variable] };
      }),
    };
  }
  const parsed = result.data;
  const mode =
    parsed.BREAKWATER_AUTH === "proxy" || parsed.BREAKWATER_AUTH === "password" ? parsed.BREAKWATER_AUTH : "none";
  const problems: AuthProblem[] = [];

  if (mode === "proxy") {
    const proxies = parseTrustedProxies(parsed.BREAKWATER_TRUSTED_PROXIES ?? "");
    if ("problem" in proxies) {
      problems.push({
        variable: "BREAKWATER_TRUSTED_PROXIES",
        message: proxies.problem,
        value: parsed.BREAKWATER_TRUSTED_PROXIES,
      });
    } else if (proxies.count === 0) {
      problems.push({
        variable: "BREAKWATER_TRUSTED_PROXIES",
        message: "must list the auth proxy's address(es) when BREAKWATER_AUTH=proxy",
      });
    }
    const groups = parseRoleGroups(parsed.BREAKWATER_ROLE_GROUPS ?? "");
    if ("problem" in groups) {
      problems.push({
        variable: "BREAKWATER_ROLE_GROUPS",
        message: groups.problem,
        value: parsed.BREAKWATER_ROLE_GROUPS,
      });
    } else if (groups.rules.length === 0) {
      problems.push({
        variable: "BREAKWATER_ROLE_GROUPS",
        message: "must map at least one group to a role when BREAKWATER_AUTH=proxy (e.g. admin:ops-admins,viewer:*)",
      });
    }
    if (problems.length > 0 || "problem" in proxies || "problem" in groups) return { problems };
    return {
      settings: {
        mode,
        trustedProxies: proxies.proxies,
        userHeader: parsed.BREAKWATER_PROXY_USER_HEADER ?? "x-forwarded-user",
        emailHeader: parsed.BREAKWATER_PROXY_EMAIL_HEADER ?? "x-forwarded-email",
        groupsHeader: parsed.BREAKWATER_PROXY_GROUPS_HEADER ?? "x-forwarded-groups",
        joinRepeatedGroups: parsed.BREAKWATER_PROXY_REPEATED_GROUPS === "join",
        roleGroups: groups.rules,
      },
    };
  }

  if (mode === "password") {
    const usersFile = parsed.BREAKWATER_USERS_FILE;
    if (!usersFile)
      problems.push({
        variable: "BREAKWATER_USERS_FILE",
        message: "must name the users file when BREAKWATER_AUTH=password",
      });
    const secret = parsed.BREAKWATER_SESSION_SECRET ?? "";
    if (secret.length < MIN_SECRET_LENGTH) {
      problems.push({
        variable: "BREAKWATER_SESSION_SECRET",
        message: `must be at least ${MIN_SECRET_LENGTH} characters when BREAKWATER_AUTH=password`,
      });
    }
    if (!usersFile || problems.length > 0) return { problems };
    return {
      settings: {
        mode,
        usersFile,
        sessionSecret: secret,
        sessionTtlSeconds: parsed.BREAKWATER_SESSION_TTL_SECONDS ?? DEFAULT_SESSION_TTL_SECONDS,
      },
    };
  }

  return { settings: { mode: "none" } };
}
