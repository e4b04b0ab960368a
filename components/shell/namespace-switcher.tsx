"use client";

import { useId, useTransition } from "react";
import { useRouter } from "next/navigation";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useTranslations } from "next-intl";
import { browserDwClient } from "@/lib/dw/browser-client";
import { NAMESPACE_COOKIE, preferenceCookie } from "@/lib/preferences";

async function fetchNamespaces({ signal }: { signal: AbortSignal }): Promise<string[]> {
  const list = await browserDwClient.listNamespaces({ signal });
  return list.namespaces.map((namespace) => namespace.name).sort((a, b) => a.localeCompare(b));
}

/**
 * Chooses the namespace every screen reads. The choice lives in a cookie that the proxy turns into
 * X-Namespace, so server renders and browser queries always agree on it.
 */
export function NamespaceSwitcher({ current }: { current: string }) {
  const t = useTranslations("namespace");
  const router = useRouter();
  const queryClient = useQueryClient();
  const [pending, startTransition] = useTransition();
  const selectId = useId();
  const hintId = useId();
  const namespaces = useQuery({ queryKey: ["namespaces"], queryFn: fetchNamespaces, staleTime: 60_000, retry: 1 });

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
          document.cookie = preferenceCookie(NAMESPACE_COOKIE, event.target.value);
          startTransition(() => {
            void queryClient.invalidateQueries();
            router.refresh();
          });
        }}
        className="h-8 max-w-48 rounded-md border border-line bg-panel px-2 font-mono text-xs text-fg disabled:opacity-70"
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
