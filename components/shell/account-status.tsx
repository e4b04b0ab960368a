import { getTranslations } from "next-intl/server";
import type { ShellContext } from "@/lib/server/pages/shell-context";
import { Button } from "@/components/ui/button";
import { withBasePath } from "@/lib/http/base-path";

/**
 * Who is signed in, with a sign-out button (a plain form POST, so it works before hydration); or,
 * without console auth, a quiet note that the console is meant for local access only.
 */
export async function AccountStatus({ auth }: { auth: ShellContext["auth"] }) {
  const t = await getTranslations("auth");
  if (auth.mode === "none") {
    return (
      <p data-testid="no-console-auth" className="px-2 text-xs text-fg-muted">
        {t("noAuth")}
      </p>
    );
  }
  if (!auth.person) return null;
  return (
    <div data-testid="account-status" className="flex flex-col gap-1 px-2 text-xs text-fg-muted">
      <p className="break-words">{t("signedInAs", { user: auth.person.user, role: t(`roles.${auth.person.role}`) })}</p>
      {auth.mode === "password" ? (
        <form method="post" action={withBasePath("/api/auth/logout")}>
          <Button type="submit" size="xs">
            {t("signOut")}
          </Button>
        </form>
      ) : null}
    </div>
  );
}
