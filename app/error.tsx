"use client";

import { useTranslations } from "next-intl";
import { EmptyState } from "@/components/ui/empty-state";

export default function ScreenError({ reset }: { error: Error & { digest?: string }; reset: () => void }) {
  const t = useTranslations("error");
  return (
    <EmptyState
      title={t("title")}
      action={
        <button
          type="button"
          onClick={reset}
          className="inline-flex h-9 items-center rounded-md bg-accent px-4 text-sm font-medium text-accent-fg"
        >
          {t("retry")}
        </button>
      }
    >
      <p>{t("body")}</p>
    </EmptyState>
  );
}
