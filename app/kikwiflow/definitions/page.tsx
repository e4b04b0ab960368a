import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { getTranslations } from "next-intl/server";
import Link from "@/components/ui/link";
import { KikwiflowDefinitionsScreen } from "@/components/kikwiflow/definitions-screen";
import { PageHeader } from "@/components/ui/page-header";
import { getConfig } from "@/lib/server/config";
import { KIKWIFLOW_HREF } from "@/lib/routes/route-for";

export async function generateMetadata(): Promise<Metadata> {
  const t = await getTranslations("kikwiflow.definitions");
  return { title: t("title") };
}

export default async function KikwiflowDefinitionsPage() {
  const settings = getConfig().kikwiflow;
  if (!settings) notFound();
  const [t, ti] = await Promise.all([getTranslations("kikwiflow.definitions"), getTranslations("kikwiflow.instance")]);
  return (
    <>
      <PageHeader title={t("title")} description={t("description", { host: settings.host })}>
        <Link href={KIKWIFLOW_HREF} className="text-sm text-accent hover:underline">
          {ti("back")}
        </Link>
      </PageHeader>
      <KikwiflowDefinitionsScreen />
    </>
  );
}
