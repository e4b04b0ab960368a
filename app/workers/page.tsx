import type { Metadata } from "next";
import { getTranslations } from "next-intl/server";
import { screenTitle } from "@/components/shell/screen-title";
import { WorkersScreen } from "@/components/system/workers-screen";
import { PageHeader } from "@/components/ui/page-header";
import { getShellContext } from "@/lib/server/shell-context";

export async function generateMetadata(): Promise<Metadata> {
  return { title: await screenTitle("workers") };
}

export default async function WorkersPage() {
  const [t, context] = await Promise.all([getTranslations("pages.workers"), getShellContext()]);
  return (
    <>
      <PageHeader title={t("title")} description={t("description")} />
      <WorkersScreen namespace={context.namespace} />
    </>
  );
}
