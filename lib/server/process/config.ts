import "server-only";
import { z } from "zod";
import type { PersonRole } from "@/lib/server/auth/roles";
import type { AuthSettings } from "@/lib/server/auth/settings";
import { parseAuthSettings } from "@/lib/server/auth/settings";
import { loadUsers } from "@/lib/server/auth/users";
import type { HostPolicy } from "@/lib/server/edge/hosts";
import { parseHostPolicy } from "@/lib/server/edge/hosts";

/** The console's server-side configuration. The token never leaves this process. */
export interface ConsoleConfig {
  /** Base URL of the Durable Workflow server, without the `/api` prefix and without a trailing slash. */
  serverUrl: string;
  /** `host[:port]` of the server, safe to show to operators. */
  serverHost: string;
  /** True when DW_SERVER_URL is unset and the console talks to the embedded server. */
  embedded: boolean;
  token: string | null;
  /** Which variable supplied the token (never its value), for diagnostics. */
  tokenSource: TokenVariable | null;
  namespace: string;
  readOnly: boolean;
  timeoutMs: number;
  /** Read timeout of `history/export`, which a real server builds in one go (DW_EXPORT_TIMEOUT_MS). */
  exportTimeoutMs: number;
  /** How calls to the server authenticate (DW_AUTH_DRIVER; lib/server/proxy/credentials.ts). */
  dwAuth: DwAuth;
  /** BREAKWATER_AUTH and its settings (lib/server/auth). */
  auth: AuthSettings;
  /**
   * The token sent for each signed-in person's role: admins get DW_ADMIN_TOKEN, operators and viewers
   * DW_OPERATOR_TOKEN, each falling back to DW_TOKEN; a non-admin is never given the admin token.
   */
  personTokens: Readonly<Record<PersonRole, PersonToken>>;
  /** BREAKWATER_ALLOWED_HOSTS and BREAKWATER_TRUSTED_PROXIES: who the console answers (lib/server/edge/hosts.ts). */
  hosts: HostPolicy;
  /**
   * The largest history export the console relays, in bytes as sent on the wire (BREAKWATER_EXPORT_MAX_MB,
   * default 1024 MB): refused before streaming when Content-Length says it is over, cut off once past it.
   */
  exportMaxBytes: number;
  /** The console-side run view (issue 14; docs/decisions/0020). */
  runView: RunViewSettings;
  /** A Kikwiflow engine (KIKWIFLOW_URL), or null: then the console has no Kikwiflow section. */
  kikwiflow: KikwiflowSettings | null;
  /** What one person may hold at once (lib/server/proxy/person-limits.ts, docs/decisions/0044). */
  personLimits: PersonLimitSettings;
  /**
   * BREAKWATER_REDIS_URL, or null: where replicas share session revocations, login budgets, per-person
   * limits, the long-poll cap and the metrics history (lib/server/shared, docs/decisions/0064).
   */
  redisUrl: string | null;
}

export interface PersonLimitSettings {
  /** Requests one client address may have in flight, refused before Next (BREAKWATER_REQUESTS_PER_ADDRESS, 64). */
  requestsPerAddress: number;
  /** Reads in flight per person: the read proxy, run-view extras, Kikwiflow reads (BREAKWATER_READS_PER_PERSON, 16). */
  reads: number;
  /** Streams open per person: run views and export downloads (BREAKWATER_STREAMS_PER_PERSON, 4). */
  streams: number;
  /** Kikwiflow pulse relays per person, of the console's 16 (BREAKWATER_PULSE_RELAYS_PER_PERSON, 4). */
  pulseRelays: number;
  /** A pulse relay ends cleanly after this long and the browser reopens it (BREAKWATER_PULSE_MAX_MINUTES, 15). */
  pulseLifetimeMs: number;
}

/**
 * Kikwiflow's management REST has no authentication, so only this process talks to it: the browser
 * reads it through the console's own routes (app/api/kikwiflow).
 */
export interface KikwiflowSettings {
  /** Engine root without a trailing slash (the REST lives under /kikwiflow/api/v1). */
  url: string;
  /** `host[:port]` of the engine, safe to show to operators. */
  host: string;
  /** Sent as `X-Tenant-Id` (KIKWIFLOW_TENANT); null sends none. */
  tenant: string | null;
}

export interface RunViewSettings {
  /** Bytes the derived-view cache may hold (BREAKWATER_RUN_VIEW_CACHE_MB, default 256 MB). */
  cacheMaxBytes: number;
  /** History walks reading at once; more wait in line (BREAKWATER_RUN_VIEW_WALKS, default 4). */
  maxWalks: number;
  /**
   * Upstream `wait_new_event=1` long-polls held at once (BREAKWATER_RUN_VIEW_LONG_POLLS, default 2):
   * each holds one of the real server's 4 PHP workers for up to 30 s
   * (durable-workflow/server@11d35b70 Dockerfile:86-100, app/Support/LongPoller.php:24).
   */
  maxLongPolls: number;
  /**
   * While a history walk reads, V8's heap grows less (BREAKWATER_RUN_VIEW_SMALL_HEAP, default on;
   * lib/server/process/heap.ts, docs/decisions/0042).
   */
  smallHeap: boolean;
}

/**
 * The real server's drivers (durable-workflow/server app/Auth/ConfiguredAuthProvider.php@83424d3):
 * `token` sends `Authorization: Bearer` (the tokens above), `signature` sends `X-Signature`, the
 * HMAC-SHA256 of the body under DW_SIGNATURE_KEY, and `none` sends neither.
 */
export type DwAuth = { driver: "token" } | { driver: "none" } | { driver: "signature"; signatureKey: string };

export interface PersonToken {
  token: string | null;
  source: TokenVariable | null;
}

const TOKEN_VARIABLES = ["DW_TOKEN", "DW_ADMIN_TOKEN", "DW_OPERATOR_TOKEN"] as const;
export type TokenVariable = (typeof TOKEN_VARIABLES)[number];

const SECRET_VARIABLES = new Set<string>([...TOKEN_VARIABLES, "DW_SIGNATURE_KEY", "BREAKWATER_REDIS_URL"]);

const optionalText = z
  .string()
  .trim()
  .transform((value) => (value === "" ? undefined : value))
  .optional();

const httpUrl = z
  .string()
  .trim()
  .refine((value) => {
    try {
      const url = new URL(value);
      return (url.protocol === "http:" || url.protocol === "https:") && url.username === "" && url.password === "";
    } catch {
      return false;
    }
  }, "must be an absolute http:// or https:// URL without credentials");

const port = z
  .string()
  .trim()
  .regex(/^\d+$/, "must be a port number")
  .transform(Number)
  .refine((value) => value >= 1 && value <= 65535, "must be between 1 and 65535");

const TRUE_WORDS = ["1", "true", "yes", "on"];

const flagText = z
  .string()
  .trim()
  .toLowerCase()
  .refine(
    (value) => ["", "0", "false", "no", "off", ...TRUE_WORDS].includes(value),
    "must be 1/0, true/false, yes/no or on/off",
  );

/** A flag that is off unless set: empty is off. */
const flag = flagText.transform((value) => TRUE_WORDS.includes(value));

/** A flag that is on unless turned off: empty means the default, as unset does. */
const flagOnByDefault = flagText.transform((value) => value === "" || TRUE_WORDS.includes(value));

function wholeNumber(min: number, max: number) {
  return z
    .string()
    .trim()
    .regex(/^\d+$/, "must be a whole number")
    .transform(Number)
    .refine((value) => value >= min && value <= max, `must be between ${min} and ${max}`);
}

const EnvSchema = z.object({
  DW_SERVER_URL: z.union([z.literal(""), httpUrl]).optional(),
  DW_EMBEDDED_PORT: port.optional(),
  DW_TOKEN: optionalText,
  DW_ADMIN_TOKEN: optionalText,
  DW_OPERATOR_TOKEN: optionalText,
  DW_NAMESPACE: z
    .string()
    .trim()
    .regex(/^[a-zA-Z0-9._-]{1,128}$/, "must be a namespace name (letters, digits, '.', '_', '-'; at most 128)")
    .optional(),
  DW_REQUEST_TIMEOUT_MS: z
    .string()
    .trim()
    .regex(/^\d+$/, "must be a whole number of milliseconds")
    .transform(Number)
    .refine((value) => value >= 100 && value <= 300_000, "must be between 100 and 300000")
    .optional(),
  DW_EXPORT_TIMEOUT_MS: z
    .string()
    .trim()
    .regex(/^\d+$/, "must be a whole number of milliseconds")
    .transform(Number)
    .refine((value) => value >= 1_000 && value <= 600_000, "must be between 1000 and 600000")
    .optional(),
  DW_AUTH_DRIVER: z
    .string()
    .trim()
    .toLowerCase()
    .refine((value) => ["", "token", "signature", "none"].includes(value), "must be token, signature or none")
    .optional(),
  DW_SIGNATURE_KEY: optionalText,
  BREAKWATER_READ_ONLY: flag.optional(),
  BREAKWATER_EXPORT_MAX_MB: z
    .string()
    .trim()
    .regex(/^\d+$/, "must be a whole number of megabytes")
    .transform(Number)
    .refine((value) => value >= 1 && value <= 65_536, "must be between 1 and 65536")
    .optional(),
  BREAKWATER_RUN_VIEW_CACHE_MB: wholeNumber(0, 65_536).optional(),
  BREAKWATER_RUN_VIEW_WALKS: wholeNumber(1, 64).optional(),
  BREAKWATER_RUN_VIEW_LONG_POLLS: wholeNumber(0, 64).optional(),
  BREAKWATER_RUN_VIEW_SMALL_HEAP: flagOnByDefault.optional(),
  KIKWIFLOW_URL: z.union([z.literal(""), httpUrl]).optional(),
  KIKWIFLOW_TENANT: optionalText,
  BREAKWATER_REQUESTS_PER_ADDRESS: wholeNumber(8, 100_000).optional(),
  BREAKWATER_READS_PER_PERSON: wholeNumber(1, 1_024).optional(),
  BREAKWATER_STREAMS_PER_PERSON: wholeNumber(1, 256).optional(),
  BREAKWATER_PULSE_RELAYS_PER_PERSON: wholeNumber(1, 16).optional(),
  BREAKWATER_PULSE_MAX_MINUTES: wholeNumber(1, 1_440).optional(),
  BREAKWATER_REDIS_URL: z
    .string()
    .trim()
    .refine((value) => value === "" || /^rediss?:\/\/[^\s]+$/.test(value), "must be a redis:// or rediss:// URL")
    .optional(),
});

function dwAuthFrom(parsed: { DW_AUTH_DRIVER?: string; DW_SIGNATURE_KEY?: string }): DwAuth | { problem: string } {
  switch (parsed.DW_AUTH_DRIVER) {
    case "signature":
      return parsed.DW_SIGNATURE_KEY
        ? { driver: "signature", signatureKey: parsed.DW_SIGNATURE_KEY }
        : { problem: "required when DW_AUTH_DRIVER=signature" };
    case "none":
      return { driver: "none" };
    default:
      return { driver: "token" };
  }
}

export class ConfigError extends Error {
  readonly variables: string[];

  constructor(problems: { variable: string; message: string; value?: string }[]) {
    const lines = problems.map(({ variable, message, value }) =>
      value === undefined ? `  ${variable}: ${message}` : `  ${variable}: ${message} (got ${JSON.stringify(value)})`,
    );
    super(`Invalid Breakwater configuration:\n${lines.join("\n")}`);
    this.name = "ConfigError";
    this.variables = problems.map((problem) => problem.variable);
  }
}

/** Parses a configuration from an environment map. Pure: tests pass their own map. */
export function parseConfig(env: Record<string, string | undefined>): ConsoleConfig {
  const result = EnvSchema.safeParse(env);
  const auth = parseAuthSettings(env);
  const hosts = parseHostPolicy(env);
  if (!result.success || "problems" in auth || "problems" in hosts) {
    throw new ConfigError([
      ...(result.success ? [] : result.error.issues).map((issue) => {
        const variable = String(issue.path[0] ?? "environment");
        const raw = env[variable];
        // Secrets are never echoed, not even in a start-up error.
        return { variable, message: issue.message, value: SECRET_VARIABLES.has(variable) ? undefined : raw };
      }),
      ...("problems" in auth ? auth.problems : []),
      // Proxy mode already names a bad BREAKWATER_TRUSTED_PROXIES; say it once.
      ...("problems" in hosts
        ? hosts.problems.filter((p) => !("problems" in auth && auth.problems.some((a) => a.variable === p.variable)))
        : []),
    ]);
  }
  const parsed = result.data;
  const dwAuth = dwAuthFrom(parsed);
  if ("problem" in dwAuth) throw new ConfigError([{ variable: "DW_SIGNATURE_KEY", message: dwAuth.problem }]);
  const explicitUrl = parsed.DW_SERVER_URL ? parsed.DW_SERVER_URL : undefined;
  const serverUrl = (explicitUrl ?? `http://127.0.0.1:${parsed.DW_EMBEDDED_PORT ?? 8080}`).replace(/\/+$/, "");
  // Admin before operator: the System screens need an admin token, and DW_TOKEN is the explicit override.
  const tokenSource = TOKEN_VARIABLES.find((name) => parsed[name] !== undefined) ?? null;
  return {
    serverUrl,
    serverHost: new URL(serverUrl).host,
    embedded: explicitUrl === undefined,
    token: tokenSource ? (parsed[tokenSource] ?? null) : null,
    tokenSource,
    namespace: (parsed.DW_NAMESPACE ?? "default").toLowerCase(),
    readOnly: parsed.BREAKWATER_READ_ONLY ?? false,
    timeoutMs: parsed.DW_REQUEST_TIMEOUT_MS ?? 10_000,
    exportTimeoutMs: parsed.DW_EXPORT_TIMEOUT_MS ?? 120_000,
    dwAuth,
    auth: auth.settings,
    personTokens: personTokens(parsed),
    hosts: hosts.policy,
    exportMaxBytes: (parsed.BREAKWATER_EXPORT_MAX_MB ?? 1024) * 1024 * 1024,
    runView: {
      cacheMaxBytes: (parsed.BREAKWATER_RUN_VIEW_CACHE_MB ?? 256) * 1024 * 1024,
      maxWalks: parsed.BREAKWATER_RUN_VIEW_WALKS ?? 4,
      maxLongPolls: parsed.BREAKWATER_RUN_VIEW_LONG_POLLS ?? 2,
      smallHeap: parsed.BREAKWATER_RUN_VIEW_SMALL_HEAP ?? true,
    },
    kikwiflow: kikwiflowFrom(parsed),
    personLimits: {
      requestsPerAddress: parsed.BREAKWATER_REQUESTS_PER_ADDRESS ?? 64,
      reads: parsed.BREAKWATER_READS_PER_PERSON ?? 16,
      streams: parsed.BREAKWATER_STREAMS_PER_PERSON ?? 4,
      pulseRelays: parsed.BREAKWATER_PULSE_RELAYS_PER_PERSON ?? 4,
      pulseLifetimeMs: (parsed.BREAKWATER_PULSE_MAX_MINUTES ?? 15) * 60_000,
    },
    redisUrl: parsed.BREAKWATER_REDIS_URL ? parsed.BREAKWATER_REDIS_URL : null,
  };
}

function kikwiflowFrom(parsed: { KIKWIFLOW_URL?: string; KIKWIFLOW_TENANT?: string }): KikwiflowSettings | null {
  if (!parsed.KIKWIFLOW_URL) return null;
  const url = parsed.KIKWIFLOW_URL.replace(/\/+$/, "");
  return { url, host: new URL(url).host, tenant: parsed.KIKWIFLOW_TENANT ?? null };
}

function personTokens(parsed: Partial<Record<TokenVariable, string>>): Record<PersonRole, PersonToken> {
  const pick = (...order: TokenVariable[]): PersonToken => {
    const source = order.find((name) => parsed[name] !== undefined) ?? null;
    return { token: source ? (parsed[source] ?? null) : null, source };
  };
  const operator = pick("DW_OPERATOR_TOKEN", "DW_TOKEN");
  return { admin: pick("DW_ADMIN_TOKEN", "DW_TOKEN", "DW_OPERATOR_TOKEN"), operator, viewer: operator };
}

let cached: ConsoleConfig | undefined;

/** The process-wide configuration, validated once (at start-up via instrumentation, else first use). */
export function getConfig(): ConsoleConfig {
  if (cached === undefined) {
    const config = parseConfig(process.env);
    // A broken users file stops the start, like any other bad setting (it is read again on each login).
    if (config.auth.mode === "password") {
      try {
        loadUsers(config.auth.usersFile);
      } catch (error) {
        throw new ConfigError([
          { variable: "BREAKWATER_USERS_FILE", message: error instanceof Error ? error.message : String(error) },
        ]);
      }
    }
    cached = config;
  }
  return cached;
}
