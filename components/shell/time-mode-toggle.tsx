"use client";

import { useEffect, useState, useTransition } from "react";
import { useRouter } from "next/navigation";
import { useTimeZone, useTranslations } from "next-intl";
import { SegmentedControl } from "@/components/ui/segmented-control";
import { PICKED_ZONE_COOKIE, preferenceCookie, TIME_MODE_COOKIE, TIME_ZONE_COOKIE } from "@/lib/preferences";
import type { TimeMode } from "@/lib/preferences";
import { zoneChoices } from "@/lib/preferences/time-zones";

function browserZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone;
}

/**
 * Switches every rendered time between UTC, the browser's zone and any IANA zone picked by name. The
 * zone travels in a cookie and the page re-renders on the server, so server- and client-rendered
 * times always agree. The zone list is the browser's own (`Intl.supportedValuesOf`), filled in after
 * hydration: the server's list may differ, and the first render holds only the zone in use.
 */
export function TimeModeToggle({ mode }: { mode: TimeMode }) {
  const t = useTranslations("time");
  const router = useRouter();
  const zone = useTimeZone() ?? "UTC";
  const [pending, startTransition] = useTransition();
  const [zones, setZones] = useState<readonly string[]>([zone]);
  useEffect(() => {
    // Filled once mounted (see above); the effect runs only in the browser.
    // eslint-disable-next-line react-hooks/set-state-in-effect -- a browser-only list, after hydration
    setZones(zoneChoices(Intl.supportedValuesOf?.("timeZone") ?? [], zone));
  }, [zone]);

  const apply = (next: TimeMode, picked?: string) => {
    document.cookie = preferenceCookie(TIME_ZONE_COOKIE, browserZone());
    if (picked) document.cookie = preferenceCookie(PICKED_ZONE_COOKIE, picked);
    document.cookie = preferenceCookie(TIME_MODE_COOKIE, next);
    startTransition(() => router.refresh());
  };
  // "Other zone" starts at the zone on screen (the browser's, from Local), so nothing jumps until one is picked.
  const choose = (next: TimeMode) => apply(next, next === "zone" ? zone : undefined);

  return (
    <div aria-busy={pending} className="flex items-center gap-1" data-testid="time-mode" data-zone={zone}>
      <SegmentedControl
        label={t("label")}
        value={mode}
        onChange={choose}
        options={[
          { value: "utc", label: t("utc") },
          { value: "local", label: t("local"), title: mode === "local" ? zone : undefined },
          { value: "zone", label: t("zone") },
        ]}
      />
      {mode === "zone" ? (
        <select
          aria-label={t("zonePicker")}
          value={zone}
          onChange={(event) => apply("zone", event.target.value)}
          className="h-8 max-w-44 rounded-md border border-line bg-panel px-1 text-xs text-fg"
          data-testid="time-zone-picker"
        >
          {zones.map((name) => (
            <option key={name} value={name}>
              {name}
            </option>
          ))}
        </select>
      ) : null}
    </div>
  );
}
