"use client";

import type { RunAction, RunCapabilities } from "@/lib/views/capabilities";
import { RUN_ACTIONS } from "@/lib/views/capabilities";
import { RUN_ACTION_FORMS } from "@/lib/actions/forms";
import { Button } from "@/components/ui/button";
import { useActionWords } from "@/components/actions/use-action-words";

/** Why each action is disabled, in words; null for an enabled one (or "checking" until the context is known). */
export function useDisabledReasons(capabilities: RunCapabilities, known: boolean): Record<RunAction, string | null> {
  const words = useActionWords();
  const reasons = {} as Record<RunAction, string | null>;
  for (const action of RUN_ACTIONS)
    reasons[action] = known ? words.capability(capabilities[action]) : words.t("checkingPermissions");
  return reasons;
}

/** One button per run action: enabled by its capability, named by its reason when disabled. */
export function ActionBar({
  capabilities,
  reasons,
  known,
  busy,
  onOpen,
}: {
  capabilities: RunCapabilities;
  reasons: Record<RunAction, string | null>;
  known: boolean;
  busy: boolean;
  onOpen: (action: RunAction) => void;
}) {
  const { t } = useActionWords();
  return (
    <div className="flex flex-wrap gap-2">
      {RUN_ACTIONS.map((action) => {
        const why = reasons[action];
        const danger = RUN_ACTION_FORMS[action].danger;
        return (
          <Button
            key={action}
            data-action={action}
            disabled={!(known && capabilities[action].enabled && !busy)}
            title={why ?? undefined}
            aria-describedby={why ? `run-action-why-${action}` : undefined}
            onClick={() => onOpen(action)}
            variant={danger ? "danger" : "secondary"}
          >
            {t(`action.${action}`)}
          </Button>
        );
      })}
    </div>
  );
}

/** The reasons as a list under the bar, so they are readable without hovering. */
export function DisabledReasons({ reasons }: { reasons: Record<RunAction, string | null> }) {
  const { t } = useActionWords();
  const entries = RUN_ACTIONS.flatMap((action) => (reasons[action] ? [{ action, text: reasons[action] }] : []));
  if (entries.length === 0) return null;
  return (
    <ul className="space-y-0.5 text-xs text-fg-muted" data-testid="action-reasons">
      {entries.map(({ action, text }) => (
        <li key={action} id={`run-action-why-${action}`} data-reason-for={action}>
          <span className="font-medium">{t(`action.${action}`)}:</span> {text}
        </li>
      ))}
    </ul>
  );
}
