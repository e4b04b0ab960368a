"use client";

import { useEffect, useRef } from "react";
import type { ReactNode } from "react";

/**
 * A modal on the native `<dialog>` element (decision 0016): the browser gives focus trapping,
 * Escape, the top layer and `inert` on the page behind it, so no headless library is needed.
 * `open` drives showModal()/close(); `onClose` fires for Escape and for `close()` alike.
 */
export function Dialog({
  open,
  onClose,
  labelledBy,
  children,
  testId,
  width = "max-w-lg",
}: {
  open: boolean;
  onClose: () => void;
  /** id of the element that names the dialog (its heading). */
  labelledBy: string;
  children: ReactNode;
  testId?: string;
  width?: string;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);
  return (
    <dialog
      ref={ref}
      onClose={onClose}
      aria-labelledby={labelledBy}
      data-testid={testId}
      className={`m-auto w-full ${width} rounded-lg border border-line bg-panel p-0 text-fg shadow-xl backdrop:bg-black/40`}
    >
      {open ? children : null}
    </dialog>
  );
}
