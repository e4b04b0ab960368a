"use client";

// The one place next/link is imported (eslint.config.mjs sends every other import here).
// eslint-disable-next-line @typescript-eslint/no-restricted-imports
import NextLink from "next/link";
import type { ComponentProps, FocusEvent, MouseEvent } from "react";
import { useState } from "react";

/**
 * The console's link: Next's Link, prefetching only once the pointer or focus is on it
 * (docs/decisions/0030). Every console page is dynamic, so each viewport prefetch is a server render
 * with the person's token; a run page showed ten of them per view (nav and breadcrumbs), about 110
 * ms of console CPU for navigations nobody made. Hover gives the click most of the same head start.
 */
export default function Link({ onMouseEnter, onFocus, prefetch, ...props }: ComponentProps<typeof NextLink>) {
  const [intent, setIntent] = useState(false);
  return (
    <NextLink
      {...props}
      // `false` stops Next's viewport prefetch; `null` (its default) runs it once intent is shown.
      prefetch={prefetch === false || !intent ? false : (prefetch ?? null)}
      onMouseEnter={(e: MouseEvent<HTMLAnchorElement>) => {
        setIntent(true);
        onMouseEnter?.(e);
      }}
      onFocus={(e: FocusEvent<HTMLAnchorElement>) => {
        setIntent(true);
        onFocus?.(e);
      }}
    />
  );
}
