/**
 * Every keyboard shortcut of the console, by the screen (or part of one) that handles it. The key
 * handlers look their keys up here (`shortcutAction`) and the `?` sheet lists this same table, so the
 * sheet cannot promise a key the code does not handle, nor miss one it does. Pure: no React, no DOM.
 */

/** A key as `KeyboardEvent.key` names it. */
export type ShortcutKey =
  | "?"
  | "Escape"
  | "Enter"
  | "ArrowDown"
  | "ArrowUp"
  | "ArrowLeft"
  | "ArrowRight"
  | "Home"
  | "End"
  | "j"
  | "k"
  | "h"
  | "l";

export interface Shortcut {
  /** The action's catalog key under `shortcuts.action`. */
  action: string;
  /** Keys that do the same thing, in the order the sheet shows them. */
  keys: readonly ShortcutKey[];
}

export const SHORTCUT_GROUPS = {
  /** The shell, on every screen (components/shell/shortcut-sheet.tsx, components/ui/dialog.tsx). */
  everywhere: [
    { action: "help", keys: ["?"] },
    { action: "close", keys: ["Escape"] },
  ],
  /** The runs list (components/run-list/use-list-keyboard.ts). */
  runsList: [
    { action: "nextRow", keys: ["j", "ArrowDown"] },
    { action: "previousRow", keys: ["k", "ArrowUp"] },
    { action: "openRow", keys: ["Enter"] },
    { action: "nextPage", keys: ["ArrowRight"] },
    { action: "previousPage", keys: ["ArrowLeft"] },
  ],
  /** The run page's tab list, when a tab has focus (components/run-detail/run-tabs.tsx). */
  runTabs: [
    { action: "nextTab", keys: ["ArrowRight"] },
    { action: "previousTab", keys: ["ArrowLeft"] },
    { action: "firstTab", keys: ["Home"] },
    { action: "lastTab", keys: ["End"] },
  ],
  /** The run's History tab (components/run-detail/history-tab.tsx). */
  history: [
    { action: "nextEvent", keys: ["j", "ArrowDown"] },
    { action: "previousEvent", keys: ["k", "ArrowUp"] },
    { action: "nextEventPage", keys: ["l", "ArrowRight"] },
    { action: "previousEventPage", keys: ["h", "ArrowLeft"] },
  ],
} as const satisfies Record<string, readonly Shortcut[]>;

export type ShortcutGroup = keyof typeof SHORTCUT_GROUPS;
export type ShortcutAction<G extends ShortcutGroup> = (typeof SHORTCUT_GROUPS)[G][number]["action"];

/** The action a key does in a group, or null: what a handler switches on. */
export function shortcutAction<G extends ShortcutGroup>(group: G, key: string): ShortcutAction<G> | null {
  for (const shortcut of SHORTCUT_GROUPS[group] as readonly Shortcut[])
    if ((shortcut.keys as readonly string[]).includes(key)) return shortcut.action as ShortcutAction<G>;
  return null;
}

/**
 * The groups the sheet shows on a path (with its `?view=`), the current screen's own first and the
 * shell's last. A run page's History keys only while the History tab is open.
 */
export function shortcutGroupsFor(pathname: string, view: string | null): ShortcutGroup[] {
  const namespaced = /^\/namespaces\/[^/]+(?:\/(.*))?$/.exec(pathname);
  const rest = namespaced?.[1] ?? "";
  if (/^runs\/?$/.test(rest)) return ["runsList", "everywhere"];
  if (/^workflows\/[^/]+\/runs\/[^/]+\/?$/.test(rest))
    return view === "history" ? ["runTabs", "history", "everywhere"] : ["runTabs", "everywhere"];
  return ["everywhere"];
}

/** `?` with Shift on most layouts, but never with Ctrl, Alt or Meta (browser and OS shortcuts). */
export function opensSheet(event: { key: string; ctrlKey: boolean; altKey: boolean; metaKey: boolean }): boolean {
  return event.key === "?" && !event.ctrlKey && !event.altKey && !event.metaKey;
}

/** Keys typed into a field belong to the field: text inputs, selects, text areas and editable content. */
const NOT_TEXT_INPUTS = new Set(["checkbox", "radio", "button", "submit", "reset", "range", "color", "file"]);
export function isTypingTarget(
  target: { tagName?: string; isContentEditable?: boolean; type?: string } | null,
): boolean {
  if (!target || !target.tagName) return false;
  if (target.isContentEditable) return true;
  if (target.tagName === "SELECT" || target.tagName === "TEXTAREA") return true;
  return target.tagName === "INPUT" && !NOT_TEXT_INPUTS.has(target.type ?? "text");
}
