"use client";

import { useRef } from "react";
import type { ReactNode } from "react";
import { useVirtualizer } from "@tanstack/react-virtual";

export const ROW_HEIGHT = 30;

/**
 * A fixed-height virtual list: only the rows in view (plus a small overscan) are in the DOM, so a
 * 50,000-event history renders a few dozen rows.
 */
export function VirtualRows({
  count,
  renderRow,
  height = 480,
  testId,
  label,
}: {
  count: number;
  renderRow: (index: number) => ReactNode;
  height?: number;
  testId?: string;
  label: string;
}) {
  const scrollRef = useRef<HTMLDivElement>(null);
  // The virtualizer re-renders this component on scroll itself; compiler memoisation is not needed here.
  // eslint-disable-next-line react-hooks/incompatible-library
  const virtualizer = useVirtualizer({
    count,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 12,
    initialRect: { width: 800, height },
  });
  return (
    <div
      ref={scrollRef}
      role="list"
      aria-label={label}
      data-testid={testId}
      className="overflow-auto rounded-md border border-line"
      style={{ height }}
    >
      <div style={{ height: virtualizer.getTotalSize(), position: "relative" }}>
        {virtualizer.getVirtualItems().map((item) => (
          <div
            key={item.key}
            role="listitem"
            data-index={item.index}
            style={{
              position: "absolute",
              top: 0,
              left: 0,
              right: 0,
              height: ROW_HEIGHT,
              transform: `translateY(${item.start}px)`,
            }}
          >
            {renderRow(item.index)}
          </div>
        ))}
      </div>
    </div>
  );
}
