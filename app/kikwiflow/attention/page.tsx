import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { getTranslations } from "next-intl/server";
import { KikwiflowAttentionScreen } from "@/components/kikwiflow/attention-screen";
import { PageHeader } from "@/components/ui/page-header";
import Link from "@/components/ui/link";
import { getConfig } from "@/lib/server/config";
import { KIKWIFLOW_HREF } from "@/lib/routes/route-for";

export async function generateMetadata(): Promise<Metadata> {
  const t = await getTranslations("kikwiflow.attention");
  return { title: t("title") };
}

export default async function KikwiflowAttentionPage() {
  const settings = getConfig().kikwiflow;
  if (!settings) notFound();
  const t = await getTranslations("kikwiflow.attention");
  const ti = await getTranslations("kikwiflow.instance");
  return (
    <>
      <PageHeader title={t("title")} description={t("description", { host: settings.host })}>
        <Link href={KIKWIFLOW_HREF} className="text-sm text-accent hover:underline">
          {ti("back")}
        </Link>
      </PageHeader>
      <KikwiflowAttentionScreen />
    </>
  );
}
