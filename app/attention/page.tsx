import type { Metadata } from "next";
import { getTranslations } from "next-intl/server";
import { screenTitle } from "@/components/shell/screen-title";
import { AttentionScreen } from "@/components/attention/attention-screen";
import { PageHeader } from "@/components/ui/page-header";
import { getShellContext } from "@/lib/server/shell-context";

export async function generateMetadata(): Promise<Metadata> {
  return { title: await screenTitle("attention") };
}

export default async function AttentionPage() {
  const [t, context] = await Promise.all([getTranslations("pages.attention"), getShellContext()]);
  return (
    <>
      <PageHeader title={t("title")} description={t("description")} />
      <AttentionScreen namespace={context.namespace} />
    </>
  );
}
