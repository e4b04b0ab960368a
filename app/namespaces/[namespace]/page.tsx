import type { Metadata } from "next";
import { getTranslations } from "next-intl/server";
import { screenTitle } from "@/components/shell/screen-title";
import { OverviewScreen } from "@/components/metrics/overview-screen";
import { PageHeader } from "@/components/ui/page-header";
import { pageNamespace } from "@/lib/server/pages/loaders";

type Params = Promise<{ namespace: string }>;

export async function generateMetadata(): Promise<Metadata> {
  // The root layout's title template applies to child segments only; the overview reads as the home page.
  const t = await getTranslations("meta");
  return { title: { absolute: t("titleTemplate", { page: await screenTitle("overview") }) } };
}

/** The namespace's overview (`/namespaces/{ns}`); `/` redirects here (proxy.ts). */
export default async function OverviewPage({ params }: { params: Params }) {
  const [t, namespace] = await Promise.all([getTranslations("pages.overview"), pageNamespace(params)]);
  return (
    <>
      <PageHeader title={t("title")} description={t("description")} />
      <OverviewScreen namespace={namespace} />
    </>
  );
}
