"use client";

import { useTranslations } from "next-intl";
import type { ProcessVariable } from "@/lib/kikwiflow/schemas";
import { variableRows } from "@/lib/kikwiflow/variables-view";
import { Muted, Section } from "@/components/ui/section";

/**
 * The instance's variables, the data the seed guide's recovery step fixes before a retry. Read-only
 * here: the engine's REST can set and unset them (PUT /process-instances/{id}/variables and
 * /variables/unset, ProcessInstanceOperationsRestApi@3b62f35), the console does not offer that yet,
 * and says so.
 */
export function VariablesTable({
  variables,
}: {
  variables: Readonly<Record<string, ProcessVariable>> | null | undefined;
}) {
  const t = useTranslations("kikwiflow.variables");
  const rows = variableRows(variables);
  return (
    <Section title={t("title", { count: rows.length })} testId="kikwiflow-variables">
      <p className="mb-2 text-xs text-fg-muted">{t("howToChange")}</p>
      {rows.length === 0 ? (
        <Muted>{t("none")}</Muted>
      ) : (
        <dl className="grid grid-cols-[max-content_1fr] gap-x-4 gap-y-1 text-sm">
          {rows.map((row) => (
            <div key={row.name} className="contents" data-testid="kikwiflow-variable">
              <dt className="font-mono text-xs">
                {row.name}
                {row.transient ? <span className="ml-1 text-fg-muted">({t("transient")})</span> : null}
              </dt>
              <dd className="min-w-0 font-mono text-xs break-all">{row.value}</dd>
            </div>
          ))}
        </dl>
      )}
    </Section>
  );
}
