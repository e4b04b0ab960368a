/**
 * A Java stack trace as the instance page shows it (an incident's `stackTrace`, a FLOW_NODE_FINISHED
 * event's `errorStackTrace`): engine-written text, so it is shown as text only, with control
 * characters other than tab and newline replaced (a trace may carry terminal escapes or NULs from
 * an exception message), and capped so one runaway trace cannot fill the page. The rest is counted,
 * not dropped silently: the screen says "N more lines".
 */

export interface StackTraceView {
  /** The first lines, joined with "\n", each at most `maxLineChars` long. */
  readonly shown: string;
  /** Lines left out after `shown`. */
  readonly hiddenLines: number;
  /** The first line (the exception class and message): the <details> summary. */
  readonly headline: string;
}

export const STACK_TRACE_MAX_LINES = 40;
export const STACK_TRACE_MAX_LINE_CHARS = 400;

// C0 controls except \t and \n, DEL, and C1 controls (ESC sequences, NUL, bell, …).
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

function clip(line: string, maxChars: number): string {
  return line.length > maxChars ? `${line.slice(0, maxChars)}…` : line;
}

/** null when there is no trace to show (absent, or only whitespace). */
export function stackTraceView(
  trace: string | null | undefined,
  maxLines = STACK_TRACE_MAX_LINES,
  maxLineChars = STACK_TRACE_MAX_LINE_CHARS,
): StackTraceView | null {
  if (trace == null || trace.trim() === "") return null;
  const lines = trace.replace(/\r\n?/g, "\n").replace(CONTROL, "\uFFFD").replace(/\n+$/, "").split("\n");
  const kept = lines.slice(0, Math.max(1, maxLines)).map((line) => clip(line, maxLineChars));
  return {
    shown: kept.join("\n"),
    hiddenLines: lines.length - kept.length,
    headline: clip(lines[0]!.trim(), maxLineChars),
  };
}
