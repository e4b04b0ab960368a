import { getTranslations } from "next-intl/server";
import { EmptyState } from "@/components/ui/empty-state";
import { PageHeader } from "@/components/ui/page-header";

export type ScreenKey = "overview" | "runs" | "attention" | "system" | "workers";

/** A screen that is not built yet: says so plainly instead of showing sample data. */
export async function PlannedScreen({ screen }: { screen: ScreenKey }) {
  const t = await getTranslations();
  return (
    <>
      <PageHeader title={t(`pages.${screen}.title`)} description={t(`pages.${screen}.description`)} />
      <EmptyState title={t("comingSoon.heading")}>
        <p>{t("comingSoon.body")}</p>
      </EmptyState>
    </>
  );
}

export async function screenTitle(screen: ScreenKey): Promise<string> {
  const t = await getTranslations("pages");
  return t(`${screen}.title`);
}
