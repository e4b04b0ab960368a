"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";
import { useTranslations } from "next-intl";
import type { ReactNode } from "react";
import { AttentionIcon, OverviewIcon, RunsIcon, SystemIcon, WorkersIcon } from "@/components/ui/icons";

const ITEMS: { href: string; key: "overview" | "runs" | "attention" | "system" | "workers"; icon: ReactNode }[] = [
  { href: "/", key: "overview", icon: <OverviewIcon /> },
  { href: "/runs", key: "runs", icon: <RunsIcon /> },
  { href: "/attention", key: "attention", icon: <AttentionIcon /> },
  { href: "/system", key: "system", icon: <SystemIcon /> },
  { href: "/workers", key: "workers", icon: <WorkersIcon /> },
];

function isActive(pathname: string, href: string): boolean {
  return href === "/" ? pathname === "/" : pathname === href || pathname.startsWith(`${href}/`);
}

export function PrimaryNav() {
  const t = useTranslations();
  const pathname = usePathname();

  return (
    <nav aria-label={t("shell.primaryNav")} className="min-w-0 overflow-x-auto">
      <ul className="flex gap-1 md:flex-col">
        {ITEMS.map((item) => {
          const active = isActive(pathname, item.href);
          return (
            <li key={item.href}>
              <Link
                href={item.href}
                aria-current={active ? "page" : undefined}
                className={`flex items-center gap-2 whitespace-nowrap rounded-md px-3 py-2 text-sm font-medium transition-colors ${
                  active ? "bg-accent-soft text-fg" : "text-fg-muted hover:bg-panel-muted hover:text-fg"
                }`}
              >
                {item.icon}
                {t(`nav.${item.key}`)}
              </Link>
            </li>
          );
        })}
      </ul>
    </nav>
  );
}
