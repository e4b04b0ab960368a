import type { Metadata } from "next";
import { getTranslations } from "next-intl/server";
import { PageHeader } from "@/components/ui/page-header";
import { RunsScreen } from "@/components/run-list/runs-screen";
import type { ErrorInfo } from "@/lib/views/error-info";
import { toErrorInfo } from "@/lib/views/error-info";
import { parseRunsQuery, statusFilter } from "@/components/run-list/run-list-url-state";
import type { WorkflowList } from "@/lib/dw";
import { getDwClient } from "@/lib/server/dw";
import { getShellContext } from "@/lib/server/shell-context";

export async function generateMetadata(): Promise<Metadata> {
  const t = await getTranslations("pages");
  return { title: t("runs.title") };
}

export default async function RunsPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const [params, context, t] = await Promise.all([searchParams, getShellContext(), getTranslations("pages")]);
  const query = parseRunsQuery(params);
  let data: WorkflowList | null = null;
  let error: ErrorInfo | null = null;
  try {
    data = await getDwClient(context.namespace).listWorkflows({
      status: statusFilter(query.status),
      workflowType: query.workflowType || undefined,
      query: query.search || undefined,
      pageSize: query.pageSize,
      nextPageToken: query.cursor,
    });
  } catch (caught) {
    error = toErrorInfo(caught);
  }
  return (
    <>
      <PageHeader title={t("runs.title")} description={t("runs.description")} />
      <RunsScreen namespace={context.namespace} initialQuery={query} initialData={data} initialError={error} />
    </>
  );
}
