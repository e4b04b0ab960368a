import type { Metadata } from "next";
import { getTranslations } from "next-intl/server";
import { screenTitle } from "@/components/shell/screen-title";
import { AttentionScreen } from "@/components/attention/attention-screen";
import { PageHeader } from "@/components/ui/page-header";
import { pageNamespace } from "@/lib/server/pages/loaders";

export async function generateMetadata(): Promise<Metadata> {
  return { title: await screenTitle("attention") };
}

export default async function AttentionPage({ params }: { params: Promise<{ namespace: string }> }) {
  const [t, namespace] = await Promise.all([getTranslations("pages.attention"), pageNamespace(params)]);
  return (
    <>
      <PageHeader title={t("title")} description={t("description")} />
      <AttentionScreen namespace={namespace} />
    </>
  );
}
