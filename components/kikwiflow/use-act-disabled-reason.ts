"use client";

import { useTranslations } from "next-intl";
import { useActionContext } from "@/components/actions/use-action-context";

/**
 * Why a Kikwiflow command (retry, bulk retry, cancel) is disabled, null when it is not, judged as
 * the action guard will judge the click: read-only mode, then role ≥ operator (`needsOperator` says
 * so for the command). "" (disabled without a sentence) until the console said what it allows.
 */
export function useActDisabledReason(needsOperator: string): string | null {
  const context = useActionContext();
  const shell = useTranslations("shell");
  if (!context.known) return "";
  if (context.readOnly) return shell("readOnlyDescription");
  if (context.personRole === "viewer" || context.role === "worker") return needsOperator;
  return null;
}
