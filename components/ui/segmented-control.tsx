"use client";

import type { ReactNode } from "react";

export interface SegmentOption<T extends string> {
  value: T;
  label: string;
  icon?: ReactNode;
  /** A tooltip (e.g. the zone "Local" means); icon-only options use their label. */
  title?: string;
}

interface SegmentedControlProps<T extends string> {
  label: string;
  value: T;
  options: readonly SegmentOption<T>[];
  onChange: (value: T) => void;
  /** Show only icons (labels stay available to assistive technology and as tooltips). */
  iconOnly?: boolean;
}

/** A small group of toggle buttons; exactly one is pressed. */
export function SegmentedControl<T extends string>({
  label,
  value,
  options,
  onChange,
  iconOnly = false,
}: SegmentedControlProps<T>) {
  return (
    <div role="group" aria-label={label} className="inline-flex rounded-md border border-line bg-panel p-0.5">
      {options.map((option) => {
        const pressed = option.value === value;
        return (
          <button
            key={option.value}
            type="button"
            aria-pressed={pressed}
            title={iconOnly ? option.label : option.title}
            onClick={() => onChange(option.value)}
            className={`inline-flex h-7 items-center gap-1 rounded px-2 text-xs font-medium transition-colors ${
              pressed ? "bg-accent text-accent-fg" : "text-fg-muted hover:bg-panel-muted hover:text-fg"
            }`}
          >
            {option.icon}
            <span className={iconOnly ? "sr-only" : undefined}>{option.label}</span>
          </button>
        );
      })}
    </div>
  );
}
