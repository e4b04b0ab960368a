"use client";

import { useEffect, useId, useRef, useState } from "react";
import { useLocale, useTimeZone, useTranslations } from "next-intl";
import { useConnection } from "@/components/shell/use-connection";
import type { ConnectionStatus } from "@/components/shell/connection-state";
import { formatDuration, formatTime } from "@/lib/format/time";
import { Button } from "@/components/ui/button";

const DOT: Record<ConnectionStatus, string> = {
  checking: "bg-fg-muted animate-pulse",
  connected: "bg-ok",
  degraded: "bg-warn",
  unauthorized: "bg-bad",
  unreachable: "bg-bad",
};

/** Shows which server the console talks to (host only) and whether it answers. */
export function ConnectionIndicator({ serverHost }: { serverHost: string }) {
  const t = useTranslations("connection");
  const locale = useLocale();
  const timeZone = useTimeZone() ?? "UTC";
  const { state, recheck, fetching } = useConnection();
  const [open, setOpen] = useState(false);
  const panelId = useId();
  const rootRef = useRef<HTMLDivElement>(null);

  useEffect(() => {
    if (!open) return;
    const onKey = (event: KeyboardEvent) => {
      if (event.key === "Escape") setOpen(false);
    };
    const onPointer = (event: PointerEvent) => {
      if (rootRef.current && !rootRef.current.contains(event.target as Node)) setOpen(false);
    };
    document.addEventListener("keydown", onKey);
    document.addEventListener("pointerdown", onPointer);
    return () => {
      document.removeEventListener("keydown", onKey);
      document.removeEventListener("pointerdown", onPointer);
    };
  }, [open]);

  const statusLabel = t(`states.${state.status}`);
  const explanation =
    state.status === "degraded"
      ? t("explain.degraded", { checks: state.failingChecks.join(", ") || state.reason || "?" })
      : t(`explain.${state.status}`);

  return (
    <div ref={rootRef} className="relative">
      <Button
        variant="bare"
        aria-expanded={open}
        aria-controls={panelId}
        title={open ? t("hideDetails") : t("showDetails")}
        onClick={() => setOpen((value) => !value)}
        data-testid="connection-indicator"
        data-status={state.status}
        className="inline-flex h-8 max-w-full items-center gap-2 rounded-md border border-line bg-panel px-2.5 text-xs text-fg hover:bg-panel-muted"
      >
        <span className="sr-only">{`${t("label")}: `}</span>
        <span aria-hidden="true" className={`size-2 shrink-0 rounded-full ${DOT[state.status]}`} />
        <span className="font-medium">{statusLabel}</span>
        <span className="hidden truncate font-mono text-fg-muted sm:inline" data-testid="connection-host">
          {serverHost}
        </span>
        {state.status === "connected" && state.version ? (
          <span className="hidden text-fg-muted lg:inline">{t("version", { version: state.version })}</span>
        ) : null}
      </Button>
      <span role="status" className="sr-only">
        {`${t("label")}: ${statusLabel}`}
      </span>

      <div
        id={panelId}
        hidden={!open}
        className="absolute right-0 z-20 mt-2 w-80 max-w-[calc(100vw-2rem)] rounded-lg border border-line bg-panel p-4 text-sm shadow-lg"
      >
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
      </div>
    </div>
  );
}
