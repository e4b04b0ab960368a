"use client";

import { useEffect, useId, useRef } from "react";
import type { KeyboardEvent as ReactKeyboardEvent, ReactNode, RefObject } from "react";
import { buttonClass } from "@/components/ui/button";

/** Marks an element inside a Menu's panel as one stop of its roving focus. */
export const MENU_ITEM = { "data-menu-item": "" } as const;
const ITEM_SELECTOR = "[data-menu-item]";

const MOVES: Readonly<Record<string, (at: number, last: number) => number>> = {
  ArrowDown: (at, last) => Math.min(at + 1, last),
  ArrowUp: (at) => Math.max(at - 1, 0),
  Home: () => 0,
  End: (_at, last) => last,
};

/** Where the arrow keys go: the next item, else nowhere (the key is left to the page). */
function moveFocus(panel: HTMLElement, key: string): boolean {
  const move = MOVES[key];
  const items = [...panel.querySelectorAll<HTMLElement>(ITEM_SELECTOR)];
  if (!move || items.length === 0) return false;
  const at = items.indexOf(document.activeElement as HTMLElement);
  const target = items[move(at, items.length - 1)];
  target?.focus();
  return true;
}

/** Closes the menu on a pointer press outside it, while it is open. */
function useOutsidePress(open: boolean, root: RefObject<HTMLElement | null>, close: () => void) {
  useEffect(() => {
    if (!open) return;
    const onPointer = (event: PointerEvent) => {
      if (!root.current?.contains(event.target as Node)) close();
    };
    document.addEventListener("pointerdown", onPointer);
    return () => document.removeEventListener("pointerdown", onPointer);
  }, [open, root, close]);
}

export interface MenuProps {
  /** The visible label above the button; it names both the button (with its content) and the panel. */
  label: ReactNode;
  /** What the button shows (the current choice). */
  summary: ReactNode;
  open: boolean;
  onOpenChange: (open: boolean) => void;
  children: ReactNode;
  triggerTestId?: string;
  panelTestId?: string;
  triggerClassName?: string;
  panelClassName?: string;
}

/**
 * A menu button: a button that opens a panel of items (`MENU_ITEM` marks them: checkboxes, buttons).
 * Enter/Space/↓ open it and focus the first item; ↑/↓/Home/End rove between items; Escape closes it
 * and returns focus to the button; Tab away or a press outside closes it too.
 */
export function Menu({ label, summary, open, onOpenChange, children, ...look }: MenuProps) {
  const id = useId();
  const rootRef = useRef<HTMLDivElement>(null);
  const buttonRef = useRef<HTMLButtonElement>(null);
  const panelRef = useRef<HTMLDivElement>(null);
  useOutsidePress(open, rootRef, () => onOpenChange(false));
  useEffect(() => {
    if (open) panelRef.current?.querySelector<HTMLElement>(ITEM_SELECTOR)?.focus();
  }, [open]);

  const onPanelKey = (event: ReactKeyboardEvent<HTMLDivElement>) => {
    if (event.key === "Escape") {
      event.preventDefault();
      onOpenChange(false);
      buttonRef.current?.focus();
    } else if (panelRef.current && moveFocus(panelRef.current, event.key)) event.preventDefault();
  };
  return (
    <div
      ref={rootRef}
      className="relative flex flex-col text-xs text-fg-muted"
      onBlur={(event) => {
        if (open && !rootRef.current?.contains(event.relatedTarget as Node | null)) onOpenChange(false);
      }}
    >
      <span id={`${id}-label`}>{label}</span>
      <button
        ref={buttonRef}
        id={`${id}-button`}
        type="button"
        aria-expanded={open}
        aria-controls={`${id}-panel`}
        aria-labelledby={`${id}-label ${id}-button`}
        onClick={() => onOpenChange(!open)}
        onKeyDown={(event) => {
          if (event.key === "ArrowDown" && !open) {
            event.preventDefault();
            onOpenChange(true);
          }
        }}
        className={buttonClass({
          variant: "bare",
          className: `mt-1 inline-flex h-8 min-w-44 items-center justify-between gap-2 rounded-md border border-line bg-panel px-2 text-sm text-fg hover:bg-panel-muted ${look.triggerClassName ?? ""}`,
        })}
        data-testid={look.triggerTestId}
      >
        {summary}
        <span aria-hidden="true" className="text-fg-muted">
          ▾
        </span>
      </button>
      {open ? (
        <div
          ref={panelRef}
          id={`${id}-panel`}
          role="group"
          aria-labelledby={`${id}-label`}
          onKeyDown={onPanelKey}
          className={`absolute top-full left-0 z-20 mt-1 rounded-md border border-line bg-panel text-fg shadow-lg dark:shadow-black/50 ${look.panelClassName ?? ""}`}
          data-testid={look.panelTestId}
        >
          {children}
        </div>
      ) : null}
    </div>
  );
}
