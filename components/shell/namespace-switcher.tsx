"use client";

import { useId, useTransition } from "react";
import { usePathname, useRouter } from "next/navigation";
import { useQuery } from "@tanstack/react-query";
import { useTranslations } from "next-intl";
import { usePageNamespace } from "@/components/hooks/use-page-namespace";
import { NAMESPACE_COOKIE, preferenceCookie } from "@/lib/preferences";
import { namespacesQuery } from "@/lib/queries/connection";
import { switchNamespaceHref } from "@/lib/routes/route-for";

/**
 * Shows the page's namespace (its URL's) and goes to the same screen in another one. The cookie it
 * writes is only "last used": bare old paths (`/runs`, …) redirect there (docs/decisions/0017).
 * Every query key holds the namespace, so nothing needs invalidating: the new page has its own.
 */
export function NamespaceSwitcher({ lastUsed }: { lastUsed: string }) {
  const t = useTranslations("namespace");
  const router = useRouter();
  const pathname = usePathname();
  const current = usePageNamespace() ?? lastUsed;
  const [pending, startTransition] = useTransition();
  const selectId = useId();
  const hintId = useId();
  const namespaces = useQuery(namespacesQuery());

  const known = namespaces.data ?? [];
  const options = known.includes(current) ? known : [current, ...known];
  const hint = namespaces.isError ? t("unavailable", { namespace: current }) : null;

  return (
    <div className="flex items-center gap-2 text-xs">
      <label htmlFor={selectId} className="font-medium text-fg-muted">
        {t("label")}
      </label>
      <select
        id={selectId}
        value={current}
        disabled={pending || namespaces.isPending}
        aria-describedby={hint ? hintId : undefined}
        data-testid="namespace-switcher"
        onChange={(event) => {
          const next = event.target.value;
          document.cookie = preferenceCookie(NAMESPACE_COOKIE, next);
          startTransition(() => router.push(switchNamespaceHref(pathname, next)));
        }}
        title={current}
        className="h-8 max-w-48 truncate rounded-md border border-line bg-panel px-2 font-mono text-xs text-fg disabled:opacity-70"
      >
        {namespaces.isPending ? <option value={current}>{t("loading")}</option> : null}
        {namespaces.isPending
          ? null
          : options.map((name) => (
              <option key={name} value={name}>
                {known.includes(name) || !namespaces.isSuccess ? name : t("unknownCurrent", { namespace: name })}
              </option>
            ))}
      </select>
      {hint ? (
        <span id={hintId} role="note" className="text-warn" title={hint}>
          <span aria-hidden="true">⚠</span>
          <span className="sr-only">{hint}</span>
        </span>
      ) : null}
    </div>
  );
}
