"use client";

import { Fragment, useId } from "react";
import { useTranslations } from "next-intl";
import { Dialog } from "@/components/ui/dialog";
import { Button } from "@/components/ui/button";
import type { Shortcut, ShortcutGroup } from "@/lib/shortcuts/registry";
import { SHORTCUT_GROUPS } from "@/lib/shortcuts/registry";

/** Letters, `?` and Esc read the same on every keyboard layout the console speaks; the rest are translated. */
const AS_IS: Readonly<Record<string, string>> = { "?": "?", Escape: "Esc" };
const LETTER = /^[a-z]$/;

/**
 * The `?` sheet itself (shortcut-sheet.tsx listens for the key): the current screen's groups from
 * the registry the key handlers read. A native modal dialog: focus stays inside, Escape closes, and
 * focus returns to where it was. Loaded the first time the sheet opens, then kept mounted.
 */
export function ShortcutSheetDialog({ groups, onClose }: { groups: ShortcutGroup[] | null; onClose: () => void }) {
  const t = useTranslations("shortcuts");
  const headingId = useId();

  const keyLabel = (key: string) => (LETTER.test(key) ? key : (AS_IS[key] ?? t(`key.${key as "Enter"}`)));

  return (
    <Dialog open={groups !== null} onClose={onClose} labelledBy={headingId} testId="shortcut-sheet">
      <div className="space-y-4 p-5">
        <h2 id={headingId} className="text-base font-semibold">
          {t("title")}
        </h2>
        {(groups ?? []).map((group) => (
          <section key={group} aria-labelledby={`${headingId}-${group}`} data-group={group}>
            <h3 id={`${headingId}-${group}`} className="mb-1 text-xs font-semibold text-fg-muted uppercase">
              {t(`group.${group}`)}
            </h3>
            <dl className="grid grid-cols-[auto_1fr] items-baseline gap-x-4 gap-y-1.5 text-sm">
              {(SHORTCUT_GROUPS[group] as readonly Shortcut[]).map((shortcut) => (
                <Fragment key={shortcut.action}>
                  <dt className="flex flex-wrap items-center gap-1 whitespace-nowrap">
                    {shortcut.keys.map((key, i) => (
                      <Fragment key={key}>
                        {i > 0 ? <span className="text-xs text-fg-muted">{t("or")}</span> : null}
                        <kbd className="min-w-6 rounded border border-line bg-panel-muted px-1.5 py-0.5 text-center font-mono text-xs">
                          {keyLabel(key)}
                        </kbd>
                      </Fragment>
                    ))}
                  </dt>
                  <dd className="min-w-0 break-words">{t(`action.${shortcut.action as "help"}`)}</dd>
                </Fragment>
              ))}
            </dl>
          </section>
        ))}
        <div className="flex justify-end">
          <Button size="sm" onClick={onClose}>
            {t("close")}
          </Button>
        </div>
      </div>
    </Dialog>
  );
}
