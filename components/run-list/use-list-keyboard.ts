"use client";

import { useEffect, useState } from "react";
import { shortcutAction } from "@/lib/shortcuts/registry";

function isTyping(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  return target.isContentEditable || ["INPUT", "SELECT", "TEXTAREA"].includes(target.tagName);
}

export interface ListKeyboard {
  /** Rows in the list. */
  count: number;
  /** Enter on the selected row. */
  onOpen: (index: number) => void;
  /** → (only when there is a next page). */
  onNext?: () => void;
  /** ← (only when there is a previous page). */
  onPrevious?: () => void;
}

/**
 * The list's keyboard: j/↓ and k/↑ move the selected row, Enter opens it, →/← page. Keys typed into a
 * field, or with a modifier, are left alone. Returns the selected index (kept inside the list).
 */
export function useListKeyboard({ count, onOpen, onNext, onPrevious }: ListKeyboard) {
  const [selected, setSelected] = useState(0);
  const index = Math.min(selected, Math.max(count - 1, 0));
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.defaultPrevented || event.metaKey || event.ctrlKey || event.altKey || isTyping(event.target)) return;
      // From the current state, not this render's index: keys pressed faster than React re-renders
      // (key repeat, a quick typist) each move one row instead of being lost.
      // The keys come from the shortcut registry, which the `?` sheet lists.
      const action = shortcutAction("runsList", event.key);
      if (action === "nextRow") {
        setSelected((current) => Math.max(Math.min(current + 1, count - 1), 0));
        event.preventDefault();
      } else if (action === "previousRow") {
        setSelected((current) => Math.max(Math.min(current, count - 1) - 1, 0));
        event.preventDefault();
      } else if (action === "openRow" && index < count) onOpen(index);
      else if (action === "nextPage") onNext?.();
      else if (action === "previousPage") onPrevious?.();
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [count, index, onOpen, onNext, onPrevious]);
  return { selected: index, setSelected };
}
