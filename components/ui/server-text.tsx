"use client";

import { useTimeFormat } from "@/components/hooks/use-time-format";
import { formatServerText } from "@/lib/format/server-text";

/**
 * Text the server wrote (a liveness or wait reason, a failure message), rendered as text, with any
 * ISO instant in it shown in the operator's zone and locale like every other time on screen; the
 * server's own wording is in the title.
 */
export function ServerText({ text }: { text: string }) {
  const { locale, timeZone } = useTimeFormat();
  const shown = formatServerText(text, { locale, timeZone });
  return <span title={shown === text ? undefined : text}>{shown}</span>;
}
