"use client";

import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { attentionScanQuery } from "@/lib/queries/attention";
import type { ScanProgress } from "@/lib/queries/attention";

export { SCAN_CONCURRENCY, SCAN_LIMIT, scanRunKey as runKey } from "@/lib/queries/attention";
export type { AttentionScan, ScanProgress } from "@/lib/queries/attention";

/** The namespace's attention scan (lib/queries/attention.ts), with its progress for the screen. */
export function useAttentionScan(namespace: string) {
  const [progress, setProgress] = useState<ScanProgress>({ listed: 0, read: 0 });
  const query = useQuery(attentionScanQuery(namespace, setProgress));
  return { ...query, progress };
}
