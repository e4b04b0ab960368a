"use client";

import { useTransition } from "react";
import { useRouter } from "next/navigation";
import { useTranslations } from "next-intl";
import { SegmentedControl } from "@/components/ui/segmented-control";
import { preferenceCookie, TIME_MODE_COOKIE, TIME_ZONE_COOKIE } from "@/lib/preferences";
import type { TimeMode } from "@/lib/preferences";

/**
 * Switches every rendered time between UTC and the browser's zone. The zone travels in a cookie and
 * the page re-renders on the server, so server- and client-rendered times always agree.
 */
export function TimeModeToggle({ mode }: { mode: TimeMode }) {
  const t = useTranslations("time");
  const router = useRouter();
  const [pending, startTransition] = useTransition();

  const choose = (next: TimeMode) => {
    document.cookie = preferenceCookie(TIME_ZONE_COOKIE, Intl.DateTimeFormat().resolvedOptions().timeZone);
    document.cookie = preferenceCookie(TIME_MODE_COOKIE, next);
    startTransition(() => router.refresh());
  };

  return (
    <div aria-busy={pending}>
      <SegmentedControl
        label={t("label")}
        value={mode}
        onChange={choose}
        options={[
          { value: "utc", label: t("utc") },
          { value: "local", label: t("local") },
        ]}
      />
    </div>
  );
}
