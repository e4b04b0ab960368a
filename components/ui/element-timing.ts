/**
 * Marks an element whose text paint the browser reports as a PerformanceElementTiming entry
 * (`elementtiming` attribute; Chromium): the moment a person can read it, not when a script
 * polling for it next ran. The run page marks its header and its exceptions (issue 14's "header +
 * exceptions visible"); the bench and any real-user monitoring read them with a PerformanceObserver
 * of type "element". React passes the attribute through; its DOM types do not list it.
 */
export const ELEMENT_TIMING = { runHeader: "run-header", exceptions: "exceptions" } as const;

export function elementTiming(name: (typeof ELEMENT_TIMING)[keyof typeof ELEMENT_TIMING]): Record<string, string> {
  return { elementtiming: name };
}
