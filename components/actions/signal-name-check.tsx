"use client";

import type { SignalNameCheck } from "@/lib/views/signal-names";
import { Button } from "@/components/ui/button";
import { useActionWords } from "@/components/actions/use-action-words";

/**
 * Under the signal-name field: the names the run awaits as one-click choices, and a warning before
 * a name it does not await is sent (the engine records any name; a wait only closes on its own).
 */
export function SignalNameCheckView({
  awaited,
  check,
  typed,
  onPick,
}: {
  awaited: readonly string[];
  check: SignalNameCheck;
  typed: string;
  onPick: (name: string) => void;
}) {
  const { t } = useActionWords();
  return (
    <div className="space-y-2 text-sm" data-testid="signal-name-check" data-check={check.kind}>
      {awaited.length > 0 ? (
        <div className="flex flex-wrap items-center gap-1.5" data-testid="awaited-signals">
          <span className="text-xs text-fg-muted">{t("signalCheck.awaitedLabel")}</span>
          {awaited.map((name) => (
            <Button
              key={name}
              size="xs"
              pressed={typed.trim() === name}
              onClick={() => onPick(name)}
              className="font-mono"
            >
              {name}
            </Button>
          ))}
        </div>
      ) : null}
      {check.kind === "unawaited" ? (
        <p
          role="alert"
          data-testid="signal-name-warning"
          className="flex flex-wrap items-center gap-2 rounded-md border border-warn px-3 py-2 text-warn"
        >
          <span>
            <span aria-hidden="true">⚠ </span>
            {t("signalCheck.unawaited", { name: typed.trim() })}
          </span>
          <Button size="xs" variant="primary" onClick={() => onPick(check.closest)}>
            {t("signalCheck.useClosest", { closest: check.closest })}
          </Button>
        </p>
      ) : null}
      {check.kind === "none_awaited" ? (
        <p role="status" data-testid="signal-name-warning" className="text-xs text-warn">
          {t("signalCheck.noneAwaited", { name: typed.trim() })}
        </p>
      ) : null}
    </div>
  );
}
