"use client";

import { useQuery } from "@tanstack/react-query";
import { useTranslations } from "next-intl";
import { endpointQuery } from "@/lib/queries/endpoint-query";
import { typedAttributes } from "@/lib/views/search-attributes";
import type { TypedAttribute } from "@/lib/views/search-attributes";
import { useTimeFormat } from "@/components/hooks/use-time-format";
import { prettyJson } from "@/components/run-detail/payload";

/**
 * A run's search attributes by their registered type: dates in the operator's time zone, keywords
 * as chips, numbers as numbers. Until the registry answers (or when it cannot be read) values are
 * shown by what they are, and a date is never guessed from a string.
 */
export function AttributeValues({ namespace, values }: { namespace: string; values: unknown }) {
  const t = useTranslations("run");
  const registry = useQuery(endpointQuery(namespace, "searchAttributes", {}));
  const rows = typedAttributes(values, registry.data ?? null);
  return (
    <div className="min-w-0">
      <h3 className="text-xs text-fg-muted">{t("header.searchAttributes")}</h3>
      <dl
        data-testid="run-search-attributes"
        className="mt-1 max-h-40 space-y-1 overflow-auto rounded border border-line bg-panel-muted/50 p-2 text-xs"
      >
        {rows.map((row) => (
          <div key={row.name} className="flex min-w-0 flex-wrap items-baseline gap-x-2" data-attribute={row.name}>
            <dt className="font-mono text-fg-muted">{row.name}</dt>
            <dd className="min-w-0 break-words">
              <Value row={row} registryKnown={registry.data !== undefined} />
            </dd>
          </div>
        ))}
      </dl>
    </div>
  );
}

function Value({ row, registryKnown }: { row: TypedAttribute; registryKnown: boolean }) {
  const t = useTranslations("run.attributes");
  const types = useTranslations("searchAttributes.types");
  const time = useTimeFormat();
  const v = row.value;
  switch (v.kind) {
    case "datetime":
      return (
        <time dateTime={new Date(v.ms).toISOString()} title={v.raw} data-kind="datetime">
          {time.dateTime(v.ms)}
        </time>
      );
    case "chips":
      return (
        <span className="inline-flex flex-wrap gap-1" data-kind="chips">
          {v.items.map((item, i) => (
            <span key={`${i}-${item}`} className="rounded border border-line bg-panel px-1.5 font-mono">
              {item}
            </span>
          ))}
        </span>
      );
    case "number":
      return (
        <span className="font-mono tabular-nums" data-kind="number">
          {time.locale ? new Intl.NumberFormat(time.locale).format(v.value) : v.value}
        </span>
      );
    case "bool":
      return <span data-kind="bool">{v.value ? t("yes") : t("no")}</span>;
    case "text":
      return (
        <span data-kind="text" title={registryKnown && row.type === null ? t("notRegistered") : undefined}>
          {v.value}
        </span>
      );
    case "json":
      return (
        <span
          className="font-mono break-all"
          data-kind="json"
          title={row.type !== null ? t("notOfType", { type: knownType(types, row.type) }) : undefined}
        >
          {prettyJson(v.value)}
        </span>
      );
  }
}

const TYPE_KEYS = ["keyword", "text", "int", "double", "bool", "datetime", "keyword_list"] as const;

/** The type's name in the operator's language, or as the server spelled it when it is a newer one. */
export function knownType(types: (key: (typeof TYPE_KEYS)[number]) => string, type: string): string {
  return (TYPE_KEYS as readonly string[]).includes(type) ? types(type as (typeof TYPE_KEYS)[number]) : type;
}
