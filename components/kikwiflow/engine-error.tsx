"use client";

import { useTranslations } from "next-intl";

/** A failed read of the engine, in the route's own words (engine down, instance finished, …). */
export function EngineError({ error }: { error: unknown }) {
  const t = useTranslations("kikwiflow");
  const message = error instanceof Error ? error.message : String(error);
  return (
    <p role="alert" data-testid="kikwiflow-error" className="rounded-md border border-bad/40 bg-bad/10 p-3 text-sm">
      {t("error", { message })}
    </p>
  );
}
