import type { Metadata } from "next";
import { getTranslations } from "next-intl/server";
import { screenTitle } from "@/components/shell/screen-title";
import { WorkersScreen } from "@/components/system/workers-screen";
import { PageHeader } from "@/components/ui/page-header";
import { pageNamespace } from "@/lib/server/pages/loaders";

export async function generateMetadata(): Promise<Metadata> {
  return { title: await screenTitle("workers") };
}

export default async function WorkersPage({ params }: { params: Promise<{ namespace: string }> }) {
  const [t, namespace] = await Promise.all([getTranslations("pages.workers"), pageNamespace(params)]);
  return (
    <>
      <PageHeader title={t("title")} description={t("description")} />
      <WorkersScreen namespace={namespace} />
    </>
  );
}
