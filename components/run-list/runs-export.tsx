"use client";

import { useSearchParams } from "next/navigation";
import { ExportLinks } from "@/components/dw/export-links";

/** The runs list's filters, as its URL holds them (run-list-url-state.ts), for the download links. */
const RUN_FILTERS = ["status", "type", "q", "range", "queue"] as const;

export function RunsExport({ namespace }: { namespace: string }) {
  const params = useSearchParams();
  const filters: Record<string, string> = {};
  for (const key of RUN_FILTERS) filters[key] = params.get(key) ?? "";
  return <ExportLinks list="runs" namespace={namespace} filters={filters} />;
}
