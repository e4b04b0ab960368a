"use client";

import { useState } from "react";
import { useTranslations } from "next-intl";
import { Button } from "@/components/ui/button";

export function CopyButton({ value, label }: { value: string; label: string }) {
  const t = useTranslations("run");
  const [copied, setCopied] = useState(false);
  return (
    <Button
      variant="bare"
      aria-label={t("copy", { what: label })}
      title={t("copy", { what: label })}
      onClick={() => {
        void navigator.clipboard?.writeText(value).then(() => {
          setCopied(true);
          setTimeout(() => setCopied(false), 1500);
        });
      }}
      className="ml-1 rounded border border-line px-1 text-[10px] font-medium text-fg-muted hover:bg-panel-muted hover:text-fg"
    >
      {copied ? t("copied") : t("copyShort")}
    </Button>
  );
}
