"use client";

import { useState } from "react";
import { useQuery } from "@tanstack/react-query";
import { useTranslations } from "next-intl";
import { endpointQuery } from "@/lib/queries/endpoint-query";
import {
  attributePredicate,
  isVisibilityQuery,
  operatorsFor,
  registryRows,
  splitPredicates,
  withoutPredicate,
  withPredicate,
} from "@/lib/views/search-attributes";
import type { FilterOperator, PredicateError } from "@/lib/views/search-attributes";
import { Button } from "@/components/ui/button";

/**
 * Filters the runs list by search-attribute values: each filter is one predicate of the list's
 * `q` (the server's visibility-query syntax), so the URL holds exactly what the server is asked.
 */
export function AttributeFilter({
  namespace,
  search,
  onChange,
}: {
  namespace: string;
  search: string;
  onChange: (search: string) => void;
}) {
  const t = useTranslations("runs.attributeFilter");
  const registry = useQuery(endpointQuery(namespace, "searchAttributes", {}));
  const rows = registry.data ? registryRows(registry.data).filter((r) => r.name !== "RunId") : [];
  const [name, setName] = useState("");
  const [operator, setOperator] = useState<FilterOperator>("=");
  const [value, setValue] = useState("");
  const [error, setError] = useState<PredicateError | null>(null);
  const [replaced, setReplaced] = useState(false);
  const chosen = rows.find((r) => r.name === name) ?? rows.find((r) => !r.system) ?? rows[0];
  const operators = chosen ? operatorsFor(chosen.type) : ["="];
  const active = search !== "" && isVisibilityQuery(search) ? splitPredicates(search) : [];

  const add = () => {
    if (!chosen) return;
    const op = operators.includes(operator) ? operator : "=";
    const predicate = attributePredicate(chosen.name, chosen.type, op, value);
    if (!predicate.ok) return setError(predicate.error);
    const next = withPredicate(search, predicate.text);
    setError(null);
    setReplaced(next.replacedTerm);
    setValue("");
    onChange(next.query);
  };

  return (
    <div className="space-y-2" data-testid="attribute-filter">
      {active.length > 0 ? (
        <ul className="flex flex-wrap items-center gap-1.5 text-xs" aria-label={t("active")}>
          {active.map((predicate, index) => (
            <li
              key={`${index}-${predicate}`}
              className="inline-flex items-center gap-1 rounded border border-line bg-panel-muted py-0.5 pr-0.5 pl-2 font-mono break-all"
            >
              {predicate}
              <button
                type="button"
                className="rounded px-1 text-fg-muted hover:bg-panel hover:text-fg"
                aria-label={t("remove", { predicate })}
                onClick={() => onChange(withoutPredicate(search, index))}
              >
                ×
              </button>
            </li>
          ))}
        </ul>
      ) : null}
      <details className="text-sm">
        <summary className="cursor-pointer text-fg-muted select-none">{t("legend")}</summary>
        <form
          className="mt-2 flex flex-wrap items-end gap-2"
          onSubmit={(event) => {
            event.preventDefault();
            add();
          }}
        >
          <label className="flex flex-col text-xs text-fg-muted">
            {t("attribute")}
            <select
              name="attribute"
              className="mt-1 max-w-[14rem] rounded border border-line bg-panel px-2 py-1.5 text-sm text-fg"
              value={chosen?.name ?? ""}
              onChange={(event) => setName(event.target.value)}
            >
              {rows.map((row) => (
                <option key={row.name} value={row.name}>
                  {row.name} ({row.type})
                </option>
              ))}
            </select>
          </label>
          <label className="flex flex-col text-xs text-fg-muted">
            {t("operator")}
            <select
              name="operator"
              className="mt-1 rounded border border-line bg-panel px-2 py-1.5 font-mono text-sm text-fg"
              value={operators.includes(operator) ? operator : "="}
              onChange={(event) => setOperator(event.target.value as FilterOperator)}
            >
              {operators.map((op) => (
                <option key={op} value={op}>
                  {op}
                </option>
              ))}
            </select>
          </label>
          <label className="flex min-w-0 basis-full flex-col text-xs text-fg-muted sm:basis-auto sm:flex-1">
            {t("value")}
            <input
              name="value"
              className="mt-1 w-full min-w-0 rounded border border-line bg-panel px-2 py-1.5 font-mono text-sm text-fg sm:min-w-[8rem]"
              value={value}
              placeholder={chosen?.type === "datetime" ? "2026-12-07T10:00:00Z" : undefined}
              aria-invalid={error !== null}
              onChange={(event) => setValue(event.target.value)}
            />
          </label>
          <Button type="submit" variant="secondary" disabled={!chosen}>
            {t("add")}
          </Button>
        </form>
        <p role="status" aria-live="polite" className="mt-1 text-xs">
          {error ? <span className="text-bad">{t(`errors.${error}`)}</span> : null}
          {!error && replaced ? <span className="text-warn">{t("replacedTerm")}</span> : null}
          {!error && !replaced && chosen?.type === "datetime" ? (
            <span className="text-fg-muted">{t("datetimeHint")}</span>
          ) : null}
        </p>
      </details>
    </div>
  );
}
