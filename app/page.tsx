import type { Metadata } from "next";
import { getTranslations } from "next-intl/server";
import { screenTitle } from "@/components/shell/screen-title";
import { OverviewScreen } from "@/components/metrics/overview-screen";
import { PageHeader } from "@/components/ui/page-header";
import { getShellContext } from "@/lib/server/shell-context";

export async function generateMetadata(): Promise<Metadata> {
  // The root layout's title template applies to child segments only, not to this page beside it.
  const t = await getTranslations("meta");
  return { title: { absolute: t("titleTemplate", { page: await screenTitle("overview") }) } };
}

export default async function OverviewPage() {
  const [t, context] = await Promise.all([getTranslations("pages.overview"), getShellContext()]);
  return (
    <>
      <PageHeader title={t("title")} description={t("description")} />
      <OverviewScreen namespace={context.namespace} />
    </>
  );
}
