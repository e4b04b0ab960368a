import type { Metadata } from "next";
import { getTranslations } from "next-intl/server";
import { screenTitle } from "@/components/shell/screen-title";
import { SearchAttributesScreen } from "@/components/search-attributes/search-attributes-screen";
import { PageHeader } from "@/components/ui/page-header";
import { pageNamespace } from "@/lib/server/pages/loaders";

export async function generateMetadata(): Promise<Metadata> {
  return { title: await screenTitle("search-attributes") };
}

export default async function SearchAttributesPage({ params }: { params: Promise<{ namespace: string }> }) {
  const [t, namespace] = await Promise.all([getTranslations("pages.search-attributes"), pageNamespace(params)]);
  return (
    <>
      <PageHeader title={t("title")} description={t("description")} />
      <SearchAttributesScreen namespace={namespace} />
    </>
  );
}
