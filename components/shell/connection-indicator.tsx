"use client";

import { lazy, Suspense, useEffect, useId, useRef, useState } from "react";
import { useTranslations } from "next-intl";
import { useConnection } from "@/components/shell/use-connection";
import type { ConnectionStatus } from "@/components/shell/connection-state";
import { Button } from "@/components/ui/button";

// The panel's words load when the person first points at, focuses or opens the indicator: the shell is
// in every route's first-load JavaScript, and the panel is closed on every first screen. React's lazy, not
// next/dynamic: the panel is never server-rendered, and next/dynamic's loader would join the shell too.
const loadDetails = () => import("@/components/shell/connection-details");
const ConnectionDetails = lazy(() => loadDetails().then((m) => ({ default: m.ConnectionDetails })));

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
  const { state, recheck, fetching } = useConnection();
  const [open, setOpen] = useState(false);
  // Drawn from the first opening on, so closing and opening again shows it at once.
  const [opened, setOpened] = useState(false);
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

  return (
    <div ref={rootRef} className="relative">
      <Button
        variant="bare"
        aria-expanded={open}
        aria-controls={panelId}
        title={open ? t("hideDetails") : t("showDetails")}
        onPointerEnter={() => void loadDetails()}
        onFocus={() => void loadDetails()}
        onClick={() => {
          setOpened(true);
          setOpen((value) => !value);
        }}
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
        className="absolute left-0 z-20 mt-2 w-80 max-w-[calc(100vw-2rem)] rounded-lg border border-line bg-panel p-4 text-sm shadow-lg"
      >
        {opened ? (
          <Suspense fallback={null}>
            <ConnectionDetails
              state={state}
              serverHost={serverHost}
              statusLabel={statusLabel}
              recheck={recheck}
              fetching={fetching}
            />
          </Suspense>
        ) : null}
      </div>
    </div>
  );
}
