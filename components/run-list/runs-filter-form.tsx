"use client";

import { useState } from "react";
import type { FormEvent } from "react";
import { useTranslations } from "next-intl";
import { Button } from "@/components/ui/button";

export interface RunsFilters {
  search: string;
  workflowType: string;
  taskQueue: string;
}

/**
 * The search, workflow-type and task-queue fields, edited locally and applied on submit. The parent gives it a
 * `key` made of the URL's filters, so when the URL changes (back button, "clear") React starts a fresh
 * form with the URL's values instead of the form copying props into state.
 */
export function RunsFilterForm({
  initial,
  typeOptions,
  queueOptions,
  filtered,
  onApply,
  onClear,
}: {
  initial: RunsFilters;
  /** Workflow types seen on the current page, offered as suggestions. */
  typeOptions: readonly string[];
  /** Task queues seen on the current page, likewise. */
  queueOptions: readonly string[];
  /** Whether any filter is set (shows "clear"). */
  filtered: boolean;
  onApply: (filters: RunsFilters) => void;
  onClear: () => void;
}) {
  const t = useTranslations("runs");
  const [search, setSearch] = useState(initial.search);
  const [type, setType] = useState(initial.workflowType);
  const [queue, setQueue] = useState(initial.taskQueue);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onApply({ search: search.trim(), workflowType: type.trim(), taskQueue: queue.trim() });
  };
  const input = "mt-1 h-8 rounded-md border border-line bg-panel px-2 text-sm text-fg";
  return (
    <form onSubmit={submit} className="flex flex-wrap items-end gap-2" role="search">
      <label className="flex flex-col text-xs text-fg-muted">
        {t("filters.searchRunId")}
        <input
          type="search"
          value={search}
          onChange={(event) => setSearch(event.target.value)}
          placeholder={t("filters.searchPlaceholder")}
          className={`${input} w-60`}
        />
      </label>
      <label className="flex flex-col text-xs text-fg-muted">
        {t("filters.type")}
        <input
          list="runs-workflow-types"
          value={type}
          onChange={(event) => setType(event.target.value)}
          placeholder={t("filters.typePlaceholder")}
          className={`${input} w-44`}
        />
        <datalist id="runs-workflow-types">
          {typeOptions.map((option) => (
            <option key={option} value={option} />
          ))}
        </datalist>
      </label>
      <label className="flex flex-col text-xs text-fg-muted">
        {t("filters.queue")}
        <input
          list="runs-task-queues"
          value={queue}
          onChange={(event) => setQueue(event.target.value)}
          placeholder={t("filters.queuePlaceholder")}
          className={`${input} w-36`}
          data-testid="runs-queue-filter"
        />
        <datalist id="runs-task-queues">
          {queueOptions.map((option) => (
            <option key={option} value={option} />
          ))}
        </datalist>
      </label>
      <Button type="submit">{t("filters.apply")}</Button>
      {filtered ? (
        <Button variant="link" onClick={onClear} className="h-8 px-2 text-sm">
          {t("filters.clear")}
        </Button>
      ) : null}
    </form>
  );
}
