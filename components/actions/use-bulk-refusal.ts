"use client";

import { useTranslations } from "next-intl";
import { useActionContext } from "@/components/actions/use-action-context";
import { useActionWords } from "@/components/actions/use-action-words";
import { personCapability } from "@/lib/views/capabilities";

/**
 * Why this person may not send a bulk command (repair, start again), or null when they may. Same
 * order as the guard (lib/server/proxy/action-guard.ts): read-only, the signed-in person, then the token.
 */
export function useBulkRefusal(): string | null {
  const t = useTranslations("attention");
  const context = useActionContext();
  const words = useActionWords();
  const byPerson = personCapability(context.personRole, "operator");
  if (!context.known) return t("checking");
  if (context.readOnly) return t("readOnly");
  if (!byPerson.enabled) return words.capability(byPerson);
  return context.role === "worker" ? t("roleWorker") : null;
}
