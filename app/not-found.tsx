import Link from "@/components/ui/link";
import { getTranslations } from "next-intl/server";
import { EmptyState } from "@/components/ui/empty-state";

export default async function NotFound() {
  const t = await getTranslations("notFound");
  return (
    <EmptyState
      title={t("title")}
      action={
        <Link
          href="/"
          className="inline-flex h-9 items-center rounded-md bg-accent px-4 text-sm font-medium text-accent-fg"
        >
          {t("home")}
        </Link>
      }
    >
      <p>{t("body")}</p>
    </EmptyState>
  );
}
