import { TIME_ZONE_COOKIE } from "@/lib/preferences";
import { EARLY_RUN_VIEW_SCRIPT } from "@/lib/queries/run-view-early";

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
 *  - when one of the page's scripts fails to load before the page is interactive (SCRIPT_FAILURE);
 *  - on a run page, starts the run view's first read once the HTML is parsed
 *    (lib/queries/run-view-early.ts), so it does not wait for hydration.
 * Kept dependency-free and tiny; errors are swallowed (each part on its own) so a locked-down browser
 * still renders.
 */
/** The element `LoadFailure` renders (hidden) and SCRIPT_FAILURE shows. */
export const LOAD_FAILURE_ID = "bw-load-failed";
/** sessionStorage key: when the page last reloaded itself after a failed script. */
export const SCRIPT_RELOAD_KEY = "bw-script-reload";
/** Within this long of that reload, a second failure is shown instead of reloading again. */
export const SCRIPT_RELOAD_WINDOW_MS = 60_000;

/**
 * A page script (`/_next/…`) that fails to load before hydration leaves the server HTML on screen
 * and never interactive: buttons stay disabled and nothing refreshes (on a run page React also
 * retried hydrating it without end, most of a core). It happens when the console was rebuilt or restarted
 * while the page loaded (the HTML names chunks the new build no longer has) or a proxy drops one.
 * The page reloads itself once, which fetches HTML that names the current chunks; a failure within
 * SCRIPT_RELOAD_WINDOW_MS of that reload, or where sessionStorage is unavailable (no loop guard),
 * shows the hidden LoadFailure alert instead, with a link that reloads. After hydration
 * (`window.__bwHydrated`) a failing chunk is the screen's own error to show, and nothing here acts.
 */
const SCRIPT_FAILURE = `try{var reloading=false;window.addEventListener("error",function(e){var s=e.target;if(reloading||window.__bwHydrated||!s||s.tagName!=="SCRIPT"||!s.src||s.src.indexOf("/_next/")<0)return;var k=${JSON.stringify(SCRIPT_RELOAD_KEY)},n=Date.now(),last;try{last=sessionStorage.getItem(k)}catch(x){last=n}if(last===null||n-Number(last)>${SCRIPT_RELOAD_WINDOW_MS}||n<Number(last)){try{sessionStorage.setItem(k,String(n));reloading=true;location.reload();return}catch(x){}}var show=function(){var b=document.getElementById(${JSON.stringify(LOAD_FAILURE_ID)});if(!b)return;b.hidden=false;var a=b.querySelector("a");if(a)a.href=location.href};if(document.readyState==="loading")document.addEventListener("DOMContentLoaded",show,{once:true});else show()},true)}catch(e){}`;

export const HEAD_SCRIPT = `(function(){try{var d=document.documentElement;var m=window.matchMedia("(prefers-color-scheme: dark)");var a=function(){var p=d.getAttribute("data-theme-preference");var k=p==="dark"||(p!=="light"&&m.matches);d.classList.toggle("dark",k);d.style.colorScheme=k?"dark":"light"};a();m.addEventListener("change",a);}catch(e){}try{var tz=function(){try{var z=Intl.DateTimeFormat().resolvedOptions().timeZone;var c=${JSON.stringify(`${TIME_ZONE_COOKIE}=`)}+encodeURIComponent(z);if(z&&document.cookie.split("; ").indexOf(c)<0){document.cookie=c+"; Path=/; Max-Age=31536000; SameSite=Lax"}}catch(e){}};if(document.readyState==="loading")document.addEventListener("DOMContentLoaded",function(){setTimeout(tz,0)},{once:true});else tz()}catch(e){}try{var early=function(e){if(window.__bwHydrated)return;var t=e.target&&e.target.closest&&e.target.closest("[data-early-tab]");if(!t||t===document.documentElement)return;e.stopPropagation();if(e.type==="click")document.documentElement.setAttribute("data-early-tab",t.getAttribute("data-early-tab"))};["pointerdown","mousedown","touchstart","focusin","pointerup","mouseup","touchend","click"].forEach(function(n){window.addEventListener(n,early,true)})}catch(e){}${SCRIPT_FAILURE}${EARLY_RUN_VIEW_SCRIPT}})();`;
