"use client";

import { useQuery } from "@tanstack/react-query";
import { operatorMetricsQuery } from "@/lib/queries/metrics";
import { needsOperatorCount } from "@/lib/views/attention-tally";

/** Refreshed slowly off the Overview; on it, the Overview's own 5 s refresh feeds the same query. */
export const ATTENTION_COUNT_REFRESH_MS = 30_000;

/**
 * How many runs need an operator, by the server's operator metrics and one rule
 * (lib/views/attention-tally.ts): the navigation's badge and the Attention page both read it here,
 * so they cannot disagree. Null while unknown or when the token may not read metrics (no count,
 * not an error).
 */
export function useAttentionCount(namespace: string): { count: number | null; updatedAt: number } {
  const metrics = useQuery({ ...operatorMetricsQuery(namespace), refetchInterval: ATTENTION_COUNT_REFRESH_MS });
  return {
    count: metrics.data ? needsOperatorCount(metrics.data.operator_metrics.runs) : null,
    updatedAt: metrics.dataUpdatedAt,
  };
}
