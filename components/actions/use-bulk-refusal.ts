"use client";

import { useTranslations } from "next-intl";
import { useGuardRefusal } from "@/components/actions/use-guard-refusal";

/** Why this person may not send a bulk command (repair, start again), or null when they may. */
export function useBulkRefusal(): string | null {
  const t = useTranslations("attention");
  return useGuardRefusal("operator", {
    checking: t("checking"),
    readOnly: t("readOnly"),
    token: () => t("roleWorker"),
  });
}
