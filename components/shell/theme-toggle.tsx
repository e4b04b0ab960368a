"use client";

import { useState } from "react";
import { useTranslations } from "next-intl";
import { SegmentedControl } from "@/components/ui/segmented-control";
import { MonitorIcon, MoonIcon, SunIcon } from "@/components/ui/icons";
import { applyTheme } from "@/components/shell/theme";
import { preferenceCookie, THEME_COOKIE } from "@/lib/preferences";
import type { ThemePreference } from "@/lib/preferences";

export function ThemeToggle({ initial }: { initial: ThemePreference }) {
  const t = useTranslations("theme");
  const [preference, setPreference] = useState<ThemePreference>(initial);

  const choose = (next: ThemePreference) => {
    setPreference(next);
    document.cookie = preferenceCookie(THEME_COOKIE, next);
    applyTheme(next);
  };

  return (
    <SegmentedControl
      label={t("label")}
      value={preference}
      onChange={choose}
      iconOnly
      options={[
        { value: "system", label: t("system"), icon: <MonitorIcon /> },
        { value: "light", label: t("light"), icon: <SunIcon /> },
        { value: "dark", label: t("dark"), icon: <MoonIcon /> },
      ]}
    />
  );
}
