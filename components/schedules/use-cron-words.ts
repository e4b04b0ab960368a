"use client";

import { useEffect, useState } from "react";
import { useLocale } from "next-intl";
import type { CronDescriber } from "@/lib/views/schedule-spec";
import { loadCronWords } from "@/lib/views/cron-words";

/**
 * The operator's cron words once loaded (lib/views/cron-words.ts), null until then. A screen that
 * will show specs calls it as it mounts, so the words load while its schedules are being read.
 */
export function useCronWords(): CronDescriber | null {
  const locale = useLocale();
  const [loaded, setLoaded] = useState<{ locale: string; words: CronDescriber } | null>(null);
  useEffect(() => {
    let live = true;
    void loadCronWords(locale).then((words) => {
      if (live) setLoaded({ locale, words });
    });
    return () => {
      live = false;
    };
  }, [locale]);
  return loaded?.locale === locale ? loaded.words : null;
}
