import type { ReactNode } from "react";

/** Shared look of text inputs, selects and textareas, so every form reads the same. */
export const inputClass =
  "rounded-md border border-line bg-canvas px-2 py-1.5 text-sm text-fg focus:outline-2 focus:outline-focus " +
  "aria-[invalid=true]:border-bad";

/**
 * A labelled form control: the label wraps the control (so a click focuses it and assistive
 * technology names it), with an optional hint and an error that is announced when it appears.
 */
export function Field({
  label,
  hint,
  error,
  children,
}: {
  label: ReactNode;
  hint?: ReactNode;
  error?: ReactNode;
  children: ReactNode;
}) {
  return (
    <label className="flex flex-col gap-1 text-sm text-fg">
      <span className="font-medium">{label}</span>
      {children}
      {hint ? <span className="text-xs text-fg-muted">{hint}</span> : null}
      {error ? (
        <span role="alert" className="text-xs text-bad">
          {error}
        </span>
      ) : null}
    </label>
  );
}
