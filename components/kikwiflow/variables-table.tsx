"use client";

import { useState } from "react";
import { useTranslations } from "next-intl";
import type { ProcessVariable } from "@/lib/kikwiflow/schemas";
import { variableRows } from "@/lib/kikwiflow/variables-view";
import type { VariableRow } from "@/lib/kikwiflow/variables-view";
import { visibleText } from "@/lib/kikwiflow/variable-edit";
import { Button } from "@/components/ui/button";
import { Muted, Section } from "@/components/ui/section";
import { useActDisabledReason } from "@/components/kikwiflow/use-act-disabled-reason";
import { useVariableEdit, VariableEditor, VariableEditOutcome } from "@/components/kikwiflow/variable-editor";

/**
 * The instance's variables, the data the seed guide's recovery step fixes before a retry. An operator
 * edits one value at a time (the engine’s PUT /process-instances/{id}/variables, decision 0048); the
 * Edit buttons say why they are disabled (read-only mode, role), as Retry and Cancel do.
 */
export function VariablesTable({
  instanceId,
  variables,
}: {
  instanceId: string;
  variables: Readonly<Record<string, ProcessVariable>> | null | undefined;
}) {
  const t = useTranslations("kikwiflow.variables");
  const rows = variableRows(variables);
  const handle = useVariableEdit(instanceId);
  const disabledReason = useActDisabledReason(t("needsOperator"));
  const [editing, setEditing] = useState<VariableRow | null>(null);
  return (
    <Section title={t("title", { count: rows.length })} testId="kikwiflow-variables">
      <p className="mb-2 text-xs text-fg-muted">{t("howToChange")}</p>
      <div className="mb-2 space-y-2">
        <VariableEditOutcome handle={handle} />
        {disabledReason && rows.length > 0 ? (
          <p className="text-xs text-fg-muted" data-testid="kikwiflow-variables-reason">
            {disabledReason}
          </p>
        ) : null}
      </div>
      {rows.length === 0 ? (
        <Muted>{t("none")}</Muted>
      ) : (
        <dl className="grid grid-cols-[minmax(0,max-content)_minmax(0,1fr)_auto] items-start gap-x-4 gap-y-1 text-sm">
          {rows.map((row) => (
            <div key={row.name} className="contents" data-testid="kikwiflow-variable">
              <dt className="font-mono text-xs break-all">
                {visibleText(row.name)}
                {row.transient ? <span className="ml-1 text-fg-muted">({t("transient")})</span> : null}
              </dt>
              <dd className="min-w-0 font-mono text-xs break-all" data-testid="kikwiflow-variable-value">
                {row.value}
              </dd>
              <dd>
                <Button
                  size="xs"
                  data-testid="kikwiflow-variable-edit"
                  aria-label={t("editLabel", { name: visibleText(row.name) })}
                  disabled={disabledReason !== null || handle.mutation.isPending}
                  onClick={() => setEditing(row)}
                >
                  {t("edit")}
                </Button>
              </dd>
            </div>
          ))}
        </dl>
      )}
      {editing ? (
        <VariableEditor name={editing.name} value={editing.raw} handle={handle} onClose={() => setEditing(null)} />
      ) : null}
    </Section>
  );
}
