"use client";

import { useLocale, useTimeZone, useTranslations } from "next-intl";
import type { ConnectionState } from "@/components/shell/connection-state";
import { formatDuration, formatTime } from "@/lib/format/time";
import { Button } from "@/components/ui/button";

interface Props {
  state: ConnectionState;
  serverHost: string;
  statusLabel: string;
  recheck: () => void;
  fetching: boolean;
}

/** What the connection indicator's panel says once opened: the server, its identity, the last probe. */
export function ConnectionDetails({ state, serverHost, statusLabel, recheck, fetching }: Props) {
  const t = useTranslations("connection");
  const locale = useLocale();
  const timeZone = useTimeZone() ?? "UTC";
  const explanation =
    state.status === "degraded"
      ? t("explain.degraded", { checks: state.failingChecks.join(", ") || state.reason || "?" })
      : t(`explain.${state.status}`);

  return (
    <>
      <p className="text-fg-muted">{explanation}</p>
      <dl className="mt-3 grid grid-cols-[auto_1fr] gap-x-3 gap-y-1.5 text-xs">
        <dt className="text-fg-muted">{t("server")}</dt>
        <dd className="break-all font-mono">{serverHost}</dd>
        <dt className="text-fg-muted">{t("details.status")}</dt>
        <dd>{statusLabel}</dd>
        {state.version ? (
          <>
            <dt className="text-fg-muted">{t("details.version")}</dt>
            <dd className="font-mono">{state.version}</dd>
          </>
        ) : null}
        {state.serverId ? (
          <>
            <dt className="text-fg-muted">{t("details.serverId")}</dt>
            <dd className="break-all font-mono">{state.serverId}</dd>
          </>
        ) : null}
        {state.defaultNamespace ? (
          <>
            <dt className="text-fg-muted">{t("details.defaultNamespace")}</dt>
            <dd className="font-mono">{state.defaultNamespace}</dd>
          </>
        ) : null}
        {state.latencyMs !== null ? (
          <>
            <dt className="text-fg-muted">{t("details.latency")}</dt>
            <dd>{formatDuration(state.latencyMs, locale)}</dd>
          </>
        ) : null}
        {state.reason ? (
          <>
            <dt className="text-fg-muted">{t("details.reason")}</dt>
            <dd className="font-mono">{state.reason}</dd>
          </>
        ) : null}
        <dt className="text-fg-muted">{t("details.lastChecked")}</dt>
        <dd>{state.checkedAt ? formatTime(state.checkedAt, { locale, timeZone }) : t("details.never")}</dd>
      </dl>
      <Button variant="primary" size="xs" onClick={recheck} disabled={fetching} className="mt-3">
        {t("retry")}
      </Button>
    </>
  );
}
