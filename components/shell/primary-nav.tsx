"use client";

import Link from "@/components/ui/link";
import { usePathname } from "next/navigation";
import { useTranslations } from "next-intl";
import type { ReactNode } from "react";
import {
  AttentionIcon,
  FailuresIcon,
  FlowIcon,
  OverviewIcon,
  RunsIcon,
  SchedulesIcon,
  NamespacesIcon,
  SearchAttributesIcon,
  SystemIcon,
  WorkersIcon,
} from "@/components/ui/icons";
import { usePageNamespace } from "@/components/hooks/use-page-namespace";
import { useAttentionCount } from "@/components/attention/use-attention-count";
import { KIKWIFLOW_HREF, screenHref, screenOf } from "@/lib/routes/route-for";
import type { Screen } from "@/lib/routes/route-for";

const ITEMS: { key: Screen; icon: ReactNode }[] = [
  { key: "overview", icon: <OverviewIcon /> },
  { key: "runs", icon: <RunsIcon /> },
  { key: "attention", icon: <AttentionIcon /> },
  { key: "failures", icon: <FailuresIcon /> },
  { key: "system", icon: <SystemIcon /> },
  { key: "workers", icon: <WorkersIcon /> },
  { key: "schedules", icon: <SchedulesIcon /> },
  { key: "search-attributes", icon: <SearchAttributesIcon /> },
  { key: "namespaces", icon: <NamespacesIcon /> },
];

const ITEM_CLASS =
  "flex items-center gap-2 whitespace-nowrap rounded-md px-3 py-2 text-sm font-medium transition-colors";
const itemTone = (active: boolean) =>
  active ? "bg-accent-soft text-fg" : "text-fg-muted hover:bg-panel-muted hover:text-fg";

/**
 * The screens of the page's namespace (or, off a namespaced page, of the last one used), and the
 * Kikwiflow section when an engine is configured (`kikwiflow`; it has no namespaces).
 */
export function PrimaryNav({ lastUsed, kikwiflow = false }: { lastUsed: string; kikwiflow?: boolean }) {
  const t = useTranslations();
  const pathname = usePathname();
  const namespace = usePageNamespace() ?? lastUsed;
  const screen = screenOf(pathname);
  const waiting = useAttentionCount(namespace).count ?? 0;

  return (
    // On a phone the items wrap onto a second row rather than scroll out of sight (issue 37: "Failures" was cut off).
    <nav aria-label={t("shell.primaryNav")} className="min-w-0">
      <ul className="flex flex-wrap gap-1 md:flex-col md:flex-nowrap">
        {ITEMS.map((item) => {
          const active = screen === item.key;
          return (
            <li key={item.key}>
              <Link
                href={screenHref(namespace, item.key)}
                aria-current={active ? "page" : undefined}
                className={`${ITEM_CLASS} ${itemTone(active)}`}
              >
                {item.icon}
                {t(`nav.${item.key}`)}
                {item.key === "attention" && waiting ? (
                  <span
                    data-testid="nav-attention-count"
                    className="ml-auto rounded-full bg-bad px-1.5 text-xs font-semibold tabular-nums text-white"
                  >
                    {waiting}
                    <span className="sr-only"> {t("nav.attentionCount", { count: waiting })}</span>
                  </span>
                ) : null}
              </Link>
            </li>
          );
        })}
        {kikwiflow ? <KikwiflowItem active={pathname.startsWith(KIKWIFLOW_HREF)} label={t("nav.kikwiflow")} /> : null}
      </ul>
    </nav>
  );
}

function KikwiflowItem({ active, label }: { active: boolean; label: string }) {
  return (
    <li>
      <Link
        href={KIKWIFLOW_HREF}
        aria-current={active ? "page" : undefined}
        className={`${ITEM_CLASS} ${itemTone(active)}`}
        data-testid="nav-kikwiflow"
      >
        <FlowIcon />
        {label}
      </Link>
    </li>
  );
}
