"use client";

import { lazy, Suspense, useEffect, useState } from "react";
import { usePathname } from "next/navigation";
import type { ShortcutGroup } from "@/lib/shortcuts/registry";
import { isTypingTarget, opensSheet, shortcutGroupsFor } from "@/lib/shortcuts/registry";

// React.lazy rather than next/dynamic: the screens without a dynamic import of their own would
// otherwise load next/dynamic's loader, larger than the sheet it defers.
const ShortcutSheetDialog = lazy(() =>
  import("@/components/shell/shortcut-sheet-dialog").then((m) => ({ default: m.ShortcutSheetDialog })),
);

/**
 * `?` opens the current screen's keyboard shortcuts, listed from the same registry the key handlers
 * read (lib/shortcuts/registry.ts). `?` typed into a field is the field's. Only the key listener is
 * in every screen's first load: the sheet (shortcut-sheet-dialog.tsx) loads when first opened.
 */
export function ShortcutSheet() {
  const pathname = usePathname();
  const [groups, setGroups] = useState<ShortcutGroup[] | null>(null);
  const [opened, setOpened] = useState(false);

  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.defaultPrevented || !opensSheet(event) || isTypingTarget(event.target as HTMLElement | null)) return;
      event.preventDefault();
      setGroups(shortcutGroupsFor(pathname, new URLSearchParams(window.location.search).get("view")));
      setOpened(true);
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [pathname]);

  return opened ? (
    <Suspense fallback={null}>
      <ShortcutSheetDialog groups={groups} onClose={() => setGroups(null)} />
    </Suspense>
  ) : null;
}
