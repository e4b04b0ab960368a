import type { Metadata } from "next";
import { Suspense } from "react";
import { notFound } from "next/navigation";
import { getTranslations } from "next-intl/server";
import { KikwiflowInstancesScreen } from "@/components/kikwiflow/instances-screen";
import { PageHeader } from "@/components/ui/page-header";
import Link from "@/components/ui/link";
import { getConfig } from "@/lib/server/process/config";
import { KIKWIFLOW_ATTENTION_HREF, KIKWIFLOW_DEFINITIONS_HREF } from "@/lib/routes/route-for";

export async function generateMetadata(): Promise<Metadata> {
  const t = await getTranslations("kikwiflow.list");
  return { title: t("title") };
}

/** The Kikwiflow section exists only while KIKWIFLOW_URL names an engine. */
export default async function KikwiflowPage() {
  const settings = getConfig().kikwiflow;
  if (!settings) notFound();
  const t = await getTranslations("kikwiflow.list");
  return (
    <>
      <PageHeader title={t("title")} description={t("description", { host: settings.host })}>
        <span className="flex flex-wrap gap-4">
          <Link
            href={KIKWIFLOW_DEFINITIONS_HREF}
            className="text-sm text-accent hover:underline"
            data-testid="kikwiflow-definitions-link"
          >
            {t("definitions")}
          </Link>
          <Link
            href={KIKWIFLOW_ATTENTION_HREF}
            className="text-sm text-accent hover:underline"
            data-testid="kikwiflow-attention-link"
          >
            {t("attention")}
          </Link>
        </span>
      </PageHeader>
      {/* The list reads its filter, page and search from the URL (useSearchParams). */}
      <Suspense>
        <KikwiflowInstancesScreen />
      </Suspense>
    </>
  );
}
