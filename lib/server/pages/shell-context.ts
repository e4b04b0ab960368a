import "server-only";
import { cookies, headers } from "next/headers";
import { getConfig } from "@/lib/server/process/config";
import { forwardedPerson } from "@/lib/server/auth/principal";
import type { Person } from "@/lib/server/auth/principal";
import type { AuthMode } from "@/lib/server/auth/settings";
import {
  NAMESPACE_COOKIE,
  parseNamespace,
  parseThemePreference,
  parseTimeMode,
  THEME_COOKIE,
  TIME_MODE_COOKIE,
} from "@/lib/preferences";
import type { ThemePreference, TimeMode } from "@/lib/preferences";
import { PAGE_NAMESPACE_HEADER } from "@/lib/server/proxy/request-namespace";

/** What the app shell needs to render a request: public facts only, never the token. */
export interface ShellContext {
  serverHost: string;
  readOnly: boolean;
  /**
   * The namespace used last (cookie), else DW_NAMESPACE. Not what a page shows — that is its URL's
   * (docs/decisions/0017) — only where bare old paths redirect and what the shell offers off a
   * namespaced page.
   */
  lastNamespace: string;
  /** The namespace of the page requested (`/namespaces/{ns}/…`), null off one (proxy.ts forwards it). */
  pageNamespace: string | null;
  theme: ThemePreference;
  timeMode: TimeMode;
  /** BREAKWATER_AUTH and the signed-in person (null without console auth, or before sign-in). */
  auth: { mode: AuthMode; person: Person | null };
  /** A Kikwiflow engine is configured (KIKWIFLOW_URL): the navigation offers its section. */
  kikwiflow: boolean;
}

export async function getShellContext(): Promise<ShellContext> {
  const config = getConfig();
  const [jar, requestHeaders] = await Promise.all([cookies(), headers()]);
  return {
    serverHost: config.serverHost,
    readOnly: config.readOnly,
    lastNamespace: parseNamespace(jar.get(NAMESPACE_COOKIE)?.value) ?? config.namespace,
    pageNamespace: parseNamespace(requestHeaders.get(PAGE_NAMESPACE_HEADER)),
    theme: parseThemePreference(jar.get(THEME_COOKIE)?.value),
    timeMode: parseTimeMode(jar.get(TIME_MODE_COOKIE)?.value),
    auth: { mode: config.auth.mode, person: config.auth.mode === "none" ? null : forwardedPerson(requestHeaders) },
    kikwiflow: config.kikwiflow !== null,
  };
}

/** Whether the request gets the shell (navigation, server status): not before sign-in (the login page; AppShell's test). */
export function shellShown(context: ShellContext): boolean {
  return context.auth.mode === "none" || context.auth.person !== null;
}
