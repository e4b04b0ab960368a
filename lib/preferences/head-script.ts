import { HEAD_SCRIPT_PARTS } from "@/lib/preferences/head-script.generated";
import { EARLY_RUN_VIEW_SCRIPT } from "@/lib/run-view/early";

/**
 * Inline script that runs in <head> before the body paints:
 *  - applies the theme (the server renders the operator's choice as data-theme-preference; "system"
 *    needs the browser's prefers-color-scheme, which only the browser knows) so there is no flash,
 *    and re-applies it whenever the OS scheme changes — from the first moment, not after hydration;
 *  - reports the browser's IANA time zone in a cookie so the server can render local times, after
 *    the HTML is parsed: the first Intl.DateTimeFormat of a page is slow enough to hold the
 *    first paint;
 *  - keeps a click on a `data-early-tab` control made before the page is interactive (a run page of
 *    a long history hydrates a second or more after its header paints): the value is left on
 *    <html data-early-tab> (which the control lookup skips) for `useEarlyTab` to apply once
 *    hydrated, instead of being lost. The click's events stop at the window until then: React, whose
 *    listeners are on the document from the moment hydration starts, finishes hydrating in one task
 *    when a discrete event (pointerdown, focus, click) reaches it mid-way, a long task on a big run;
 *  - when one of the page's scripts fails to load before the page is interactive, reloads once (below);
 *  - on a run page, starts the run view's first read once the HTML is parsed
 *    (lib/run-view/early.ts), so it does not wait for hydration.
 * Kept dependency-free and tiny; errors are swallowed (each part on its own) so a locked-down browser
 * still renders.
 */
export { LOAD_FAILURE_ID, SCRIPT_RELOAD_KEY, SCRIPT_RELOAD_WINDOW_MS } from "@/lib/preferences/head-script-names";

/**
 * A page script (`/_next/…`) that fails to load before hydration leaves the server HTML on screen
 * and never interactive: buttons stay disabled and nothing refreshes (on a run page React also
 * retried hydrating it without end, most of a core). It happens when the console was rebuilt or restarted
 * while the page loaded (the HTML names chunks the new build no longer has) or a proxy drops one.
 * The page reloads itself once, which fetches HTML that names the current chunks; a failure within
 * SCRIPT_RELOAD_WINDOW_MS of that reload, or where sessionStorage is unavailable (no loop guard),
 * shows the hidden LoadFailure alert instead, with a link that reloads. After hydration
 * (`window.__bwHydrated`) a failing chunk is the screen's own error to show, and nothing here acts.
 *
 * The parts are ordinary TypeScript in head-script-source.ts, built into head-script.generated.ts
 * (`node --import tsx scripts/head-script.ts`); the early run-view read follows in its own function.
 * lib/server/edge/csp.ts hashes this very string for the CSP (decision 0012).
 */
export const HEAD_SCRIPT = `${HEAD_SCRIPT_PARTS}(function(){${EARLY_RUN_VIEW_SCRIPT}})();`;
