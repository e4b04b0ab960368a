import type { Metadata } from "next";
import { getTranslations } from "next-intl/server";
import { screenTitle } from "@/components/shell/screen-title";
import { SchedulesScreen } from "@/components/schedules/schedules-screen";
import { PageHeader } from "@/components/ui/page-header";
import { pageNamespace } from "@/lib/server/pages/loaders";

export async function generateMetadata(): Promise<Metadata> {
  return { title: await screenTitle("schedules") };
}

export default async function SchedulesPage({ params }: { params: Promise<{ namespace: string }> }) {
  const [t, namespace] = await Promise.all([getTranslations("pages.schedules"), pageNamespace(params)]);
  return (
    <>
      <PageHeader title={t("title")} description={t("description")} />
      <SchedulesScreen namespace={namespace} />
    </>
  );
}
