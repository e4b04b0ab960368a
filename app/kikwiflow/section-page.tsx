import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { getTranslations } from "next-intl/server";
import type { ReactNode } from "react";
import Link from "@/components/ui/link";
import { PageHeader } from "@/components/ui/page-header";
import { getConfig } from "@/lib/server/process/config";
import { KIKWIFLOW_HREF } from "@/lib/routes/route-for";

/**
 * The Kikwiflow screens under /kikwiflow that share one header shape: title, engine host, a way back.
 * Colocated in app/ (not a route: no page.tsx name) because it reads the server config.
 */
export type KikwiflowSection = "attention" | "definitions";

export async function kikwiflowSectionMetadata(section: KikwiflowSection): Promise<Metadata> {
  const t = await getTranslations(`kikwiflow.${section}`);
  return { title: t("title") };
}

/** A Kikwiflow section page: 404 when no engine is configured, else its header above `children`. */
export async function KikwiflowSectionPage({ section, children }: { section: KikwiflowSection; children: ReactNode }) {
  const settings = getConfig().kikwiflow;
  if (!settings) notFound();
  const [t, ti] = await Promise.all([getTranslations(`kikwiflow.${section}`), getTranslations("kikwiflow.instance")]);
  return (
    <>
      <PageHeader title={t("title")} description={t("description", { host: settings.host })}>
        <Link href={KIKWIFLOW_HREF} className="text-sm text-accent hover:underline">
          {ti("back")}
        </Link>
      </PageHeader>
      {children}
    </>
  );
}
