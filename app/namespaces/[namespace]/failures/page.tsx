import type { Metadata } from "next";
import { getTranslations } from "next-intl/server";
import { screenTitle } from "@/components/shell/screen-title";
import { FailuresScreen } from "@/components/failures/failures-screen";
import { PageHeader } from "@/components/ui/page-header";
import { pageNamespace } from "@/lib/server/pages/loaders";

export async function generateMetadata(): Promise<Metadata> {
  return { title: await screenTitle("failures") };
}

export default async function FailuresPage({ params }: { params: Promise<{ namespace: string }> }) {
  const [t, namespace] = await Promise.all([getTranslations("pages.failures"), pageNamespace(params)]);
  return (
    <>
      <PageHeader title={t("title")} description={t("description")} />
      <FailuresScreen namespace={namespace} />
    </>
  );
}
