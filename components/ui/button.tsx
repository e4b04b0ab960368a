import type { ButtonHTMLAttributes } from "react";

/**
 * The console's one button. Variants name intent, not colour: `primary` (the screen's main
 * action), `secondary` (bordered), `danger` (destroys or stops something), `ghost` (quiet, inside
 * dense rows and toolbars), `link` (reads as text). Every variant dims and stops pointer feedback
 * when disabled, so a refused action never looks clickable. `bare` keeps only the focus ring and the
 * disabled look, for buttons whose whole shape is set by their place (tabs, list rows, chips).
 */
export type ButtonVariant = "primary" | "secondary" | "danger" | "ghost" | "link" | "bare";
export type ButtonSize = "xs" | "sm" | "md";

export interface ButtonProps extends ButtonHTMLAttributes<HTMLButtonElement> {
  variant?: ButtonVariant;
  size?: ButtonSize;
  /** Pressed state for toggles and tabs made of buttons (sets aria-pressed unless `role` says otherwise). */
  pressed?: boolean;
}

const FOCUS_AND_DISABLED =
  "focus-visible:outline-2 focus-visible:outline-focus disabled:cursor-not-allowed disabled:opacity-50";
const BASE =
  "inline-flex items-center justify-center gap-1 rounded-md font-medium whitespace-nowrap transition-colors " +
  FOCUS_AND_DISABLED;

// A disabled filled button drops its fill: a dimmed red or blue still reads as "press me" on a dark
// canvas, so refused primary/danger actions look like the other refused buttons around them.
const DISABLED_FILL = "disabled:border disabled:border-line disabled:bg-panel-muted disabled:text-fg";

const VARIANTS: Record<ButtonVariant, string> = {
  primary: `bg-accent text-accent-fg hover:opacity-90 ${DISABLED_FILL}`,
  secondary: "border border-line bg-panel-muted text-fg hover:bg-accent-soft",
  danger: `bg-bad text-canvas hover:opacity-90 ${DISABLED_FILL}`,
  ghost: "text-fg-muted hover:bg-panel-muted hover:text-fg",
  link: "text-accent hover:underline",
  bare: "",
};

const PRESSED = "bg-accent text-accent-fg hover:bg-accent hover:text-accent-fg";

const SIZES: Record<ButtonSize, string> = {
  xs: "h-6 px-2 text-xs",
  sm: "h-8 px-3 text-sm",
  md: "h-9 px-4 text-sm",
};

export function buttonClass({
  variant = "secondary",
  size = "sm",
  pressed,
  className,
}: Pick<ButtonProps, "variant" | "size" | "pressed" | "className">): string {
  if (variant === "bare") return [FOCUS_AND_DISABLED, className].filter(Boolean).join(" ");
  // Pressed replaces the variant's colours: two text colours on one element would fight in the CSS order.
  const colours = pressed ? PRESSED : VARIANTS[variant];
  const parts = [BASE, colours, variant === "link" ? "" : SIZES[size], className];
  return parts.filter(Boolean).join(" ");
}

export function Button({ variant, size, pressed, className, type = "button", ...rest }: ButtonProps) {
  const aria = pressed === undefined || rest.role ? {} : { "aria-pressed": pressed };
  return <button type={type} className={buttonClass({ variant, size, pressed, className })} {...aria} {...rest} />;
}
