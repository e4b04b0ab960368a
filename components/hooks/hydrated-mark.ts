declare global {
  interface Window {
    /** Set once the page has hydrated; read by the head script (lib/preferences/head-script.ts). */
    __bwHydrated?: boolean;
  }
}

/**
 * Tells the head script the page is interactive: from here on it stops holding early tab presses
 * (`useEarlyTab`) and leaves a failed script to the screen (`HydratedFlag`, decision 0036).
 */
export function markHydrated(): void {
  window.__bwHydrated = true;
}
