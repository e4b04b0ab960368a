"use client";

import { useState } from "react";
import { useLocale, useTimeZone, useTranslations } from "next-intl";
import { useConnection } from "@/components/shell/use-connection";
import { liveAt, staleNotice } from "@/components/shell/connection-state";
import { formatTime } from "@/lib/format/time";
import { Button } from "@/components/ui/button";

/**
 * Above every screen while the Durable Workflow server does not answer: what the page shows is
 * from the last time it did, and not live (the screens keep their last data rather than blank out).
 */
export function StaleBanner({ serverHost }: { serverHost: string }) {
  const t = useTranslations("connection.stale");
  const locale = useLocale();
  const timeZone = useTimeZone() ?? "UTC";
  const { state, recheck, fetching } = useConnection();
  const [lastLive, setLastLive] = useState<number | null>(null);
  // Adjusted while rendering (React's pattern for state derived from changing input), not in an effect.
  const live = liveAt(state, lastLive);
  if (live !== lastLive) setLastLive(live);
  const notice = staleNotice(state, lastLive);
  if (!notice) return null;
  const since = notice.since === null ? null : formatTime(notice.since, { locale, timeZone });
  return (
    <div
      role="alert"
      data-testid="stale-banner"
      data-since={notice.since ?? ""}
      className="flex flex-wrap items-center gap-x-3 gap-y-1 border-b border-bad bg-bad/10 px-4 py-2 text-sm md:px-8"
    >
      <p className="min-w-0 flex-1">
        <strong className="font-semibold">
          {since === null ? t("titleNever", { host: serverHost }) : t("title", { host: serverHost, since })}
        </strong>{" "}
        {t("body", { reason: notice.reason })}
      </p>
      <Button variant="secondary" size="xs" onClick={recheck} disabled={fetching}>
        {t("retry")}
      </Button>
    </div>
  );
}
