"use client";

import { useTranslations } from "next-intl";
import { EmptyState } from "@/components/ui/empty-state";
import { Button } from "@/components/ui/button";

export default function ScreenError({ reset }: { error: Error & { digest?: string }; reset: () => void }) {
  const t = useTranslations("error");
  return (
    <EmptyState
      title={t("title")}
      action={
        <Button variant="primary" size="md" onClick={reset}>
          {t("retry")}
        </Button>
      }
    >
      <p>{t("body")}</p>
    </EmptyState>
  );
}
