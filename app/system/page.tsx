import type { Metadata } from "next";
import { getTranslations } from "next-intl/server";
import { screenTitle } from "@/components/shell/screen-title";
import { SystemScreen } from "@/components/system/system-screen";
import { PageHeader } from "@/components/ui/page-header";
import { getShellContext } from "@/lib/server/shell-context";

export async function generateMetadata(): Promise<Metadata> {
  return { title: await screenTitle("system") };
}

export default async function SystemPage() {
  const [t, context] = await Promise.all([getTranslations("pages.system"), getShellContext()]);
  return (
    <>
      <PageHeader title={t("title")} description={t("description")} />
      <SystemScreen namespace={context.namespace} />
    </>
  );
}
