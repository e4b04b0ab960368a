import type { Metadata } from "next";
import { getTranslations } from "next-intl/server";
import { PageHeader } from "@/components/ui/page-header";
import { RunsScreen } from "@/components/run-list/runs-screen";
import { RunsExport } from "@/components/run-list/runs-export";
import { parseRunsQuery } from "@/components/run-list/run-list-url-state";
import { loadRunsPage, pageNamespace } from "@/lib/server/pages/loaders";

export async function generateMetadata(): Promise<Metadata> {
  const t = await getTranslations("pages");
  return { title: t("runs.title") };
}

export default async function RunsPage({
  params,
  searchParams,
}: {
  params: Promise<{ namespace: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const [namespace, search, t] = await Promise.all([pageNamespace(params), searchParams, getTranslations("pages")]);
  const query = parseRunsQuery(search);
  const { data, error } = await loadRunsPage(namespace, query);
  return (
    <>
      <PageHeader title={t("runs.title")} description={t("runs.description")}>
        <RunsExport namespace={namespace} />
      </PageHeader>
      <RunsScreen namespace={namespace} initialQuery={query} initialData={data} initialError={error} />
    </>
  );
}
