import type { Metadata } from "next";
import { headers } from "next/headers";
import { redirect } from "next/navigation";
import { getTranslations } from "next-intl/server";
import { getConfig } from "@/lib/server/process/config";
import { forwardedPerson } from "@/lib/server/auth/principal";
import { safeNextPath } from "@/lib/server/auth/redirect";
import { Button } from "@/components/ui/button";
import { withBasePath } from "@/lib/http/base-path";

export async function generateMetadata(): Promise<Metadata> {
  const t = await getTranslations("auth");
  return { title: t("title") };
}

const ERRORS = ["invalid", "missing", "rate_limited", "unavailable", "shared_state", "no_role", "signed_out"] as const;
type LoginError = (typeof ERRORS)[number];

function loginError(value: string | string[] | undefined): LoginError | null {
  return typeof value === "string" && (ERRORS as readonly string[]).includes(value) ? (value as LoginError) : null;
}

/** Password mode's sign-in form (a plain POST to /api/auth/login); proxy mode explains where to sign in. */
export default async function LoginPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const [params, requestHeaders, t] = await Promise.all([searchParams, headers(), getTranslations("auth")]);
  const mode = getConfig().auth.mode;
  const next = safeNextPath(params.next);
  if (mode === "none" || (forwardedPerson(requestHeaders) && params.error !== "no_role")) redirect(next);
  const error = loginError(params.error);

  return (
    <section
      aria-labelledby="login-title"
      className="w-full max-w-sm rounded-lg border border-line bg-panel p-6 shadow-sm"
    >
      <h1 id="login-title" className="text-xl font-semibold tracking-tight">
        {t("title")}
      </h1>
      <p className="mt-1 text-sm text-fg-muted">{mode === "password" ? t("intro") : t("proxyIntro")}</p>
      {error ? (
        <p
          role={error === "signed_out" ? "status" : "alert"}
          data-testid="login-message"
          className="mt-4 rounded-md border border-line px-3 py-2 text-sm"
        >
          {t(`errors.${error}`)}
        </p>
      ) : null}
      {mode === "password" ? (
        <form method="post" action={withBasePath("/api/auth/login")} className="mt-4 flex flex-col gap-3">
          <input type="hidden" name="next" value={next} />
          <label className="flex flex-col gap-1 text-sm font-medium">
            {t("user")}
            <input
              name="user"
              autoComplete="username"
              required
              maxLength={128}
              className="rounded-md border border-line bg-canvas px-2 py-1.5 font-normal"
            />
          </label>
          <label className="flex flex-col gap-1 text-sm font-medium">
            {t("password")}
            <input
              name="password"
              type="password"
              autoComplete="current-password"
              required
              className="rounded-md border border-line bg-canvas px-2 py-1.5 font-normal"
            />
          </label>
          <Button type="submit" variant="primary" size="md" className="mt-2">
            {t("submit")}
          </Button>
        </form>
      ) : null}
    </section>
  );
}
