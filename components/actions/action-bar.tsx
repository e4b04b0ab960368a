"use client";

import { useLocale } from "next-intl";
import type { RunAction, RunCapabilities } from "@/lib/views/capabilities";
import { RUN_ACTIONS } from "@/lib/views/capabilities";
import { RUN_ACTION_FORMS } from "@/lib/actions/forms";
import { Button } from "@/components/ui/button";
import { useActionWords } from "@/components/actions/use-action-words";
import { useHydrated } from "@/components/hooks/use-hydrated";

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
  // Until the page is interactive a click would be lost (useHydrated): the buttons wait for it.
  const hydrated = useHydrated();
  return (
    <div className="flex flex-wrap gap-2">
      {RUN_ACTIONS.map((action) => {
        const why = reasons[action];
        const danger = RUN_ACTION_FORMS[action].danger;
        return (
          <Button
            key={action}
            data-action={action}
            disabled={!(hydrated && known && capabilities[action].enabled && !busy)}
            title={why ?? undefined}
            aria-describedby={why ? reasonId(reasons, action) : undefined}
            onClick={() => onOpen(action)}
            // An enabled Repair means the run is stuck: it is then the obvious next step (issue 15).
            variant={
              action === "repair" && known && capabilities.repair.enabled ? "primary" : danger ? "danger" : "secondary"
            }
          >
            {t(`action.${action}`)}
          </Button>
        );
      })}
    </div>
  );
}

/**
 * Actions disabled for the same reason, together: a closed run said "The run is closed" four
 * times over (issue 15). Each group keeps the first action's id so every button can point at it.
 */
export function reasonGroups(reasons: Record<RunAction, string | null>): { actions: RunAction[]; text: string }[] {
  const groups = new Map<string, RunAction[]>();
  for (const action of RUN_ACTIONS) {
    const text = reasons[action];
    if (text) groups.set(text, [...(groups.get(text) ?? []), action]);
  }
  return [...groups].map(([text, actions]) => ({ actions, text }));
}

/** The element id a disabled button's aria-describedby names: its reason group's. */
export function reasonId(reasons: Record<RunAction, string | null>, action: RunAction): string | undefined {
  const group = reasonGroups(reasons).find((g) => g.actions.includes(action));
  return group ? `run-action-why-${group.actions[0]}` : undefined;
}

/** The reasons as a list under the bar, so they are readable without hovering. */
export function DisabledReasons({ reasons }: { reasons: Record<RunAction, string | null> }) {
  const { t } = useActionWords();
  const locale = useLocale();
  const groups = reasonGroups(reasons);
  if (groups.length === 0) return null;
  // The action names are joined as the locale lists words ("Repair, Cancel and Signal", "Réparer, Annuler et Signaler").
  const list = new Intl.ListFormat(locale, { type: "conjunction" });
  return (
    <ul className="space-y-0.5 text-xs text-fg-muted" data-testid="action-reasons">
      {groups.map(({ actions, text }) => (
        <li key={actions.join(" ")} id={`run-action-why-${actions[0]}`} data-reason-for={actions.join(" ")}>
          <span className="font-medium">{list.format(actions.map((action) => t(`action.${action}`)))}:</span> {text}
        </li>
      ))}
    </ul>
  );
}
