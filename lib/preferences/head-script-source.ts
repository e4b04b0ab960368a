/**
 * The head script's parts as ordinary TypeScript (lib/preferences/head-script.ts says what each is
 * for). Not imported by the console: scripts/head-script.ts bundles and minifies this module into
 * lib/preferences/head-script.generated.ts, whose text is what the page inlines and the CSP hashes.
 * Each part is run in its own try, so one a locked-down browser refuses leaves the others working.
 */
import { TIME_ZONE_COOKIE } from "@/lib/preferences";
import { LOAD_FAILURE_ID, SCRIPT_RELOAD_KEY, SCRIPT_RELOAD_WINDOW_MS } from "@/lib/preferences/head-script-names";

declare global {
  interface Window {
    /** Set once the page has hydrated (components/hooks/hydrated-mark.ts). */
    __bwHydrated?: boolean;
  }
}

/** The operator's theme, with "system" read from the OS now and whenever it changes. */
function applyTheme(): void {
  const root = document.documentElement;
  const dark = window.matchMedia("(prefers-color-scheme: dark)");
  const apply = () => {
    const preference = root.getAttribute("data-theme-preference");
    const isDark = preference === "dark" || (preference !== "light" && dark.matches);
    root.classList.toggle("dark", isDark);
    root.style.colorScheme = isDark ? "dark" : "light";
  };
  apply();
  dark.addEventListener("change", apply);
}

/** The browser's time zone in a cookie, once the HTML is parsed (the first Intl call is slow). */
function reportTimeZone(): void {
  const report = () => {
    try {
      const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
      const cookie = `${TIME_ZONE_COOKIE}=` + encodeURIComponent(zone);
      if (zone && document.cookie.split("; ").indexOf(cookie) < 0)
        document.cookie = cookie + "; Path=/; Max-Age=31536000; SameSite=Lax";
    } catch {
      // no zone: the server renders UTC
    }
  };
  if (document.readyState === "loading")
    document.addEventListener("DOMContentLoaded", () => setTimeout(report, 0), { once: true });
  else report();
}

/** Keeps a `data-early-tab` click made before hydration on <html data-early-tab> for `useEarlyTab`. */
function holdEarlyTabClicks(): void {
  const hold = (event: Event) => {
    if (window.__bwHydrated) return;
    const target = event.target as Element | null;
    const control = target && target.closest && target.closest("[data-early-tab]");
    if (!control || control === document.documentElement) return;
    event.stopPropagation();
    if (event.type === "click")
      document.documentElement.setAttribute("data-early-tab", control.getAttribute("data-early-tab") as string);
  };
  for (const name of ["pointerdown", "mousedown", "touchstart", "focusin", "pointerup", "mouseup", "touchend", "click"])
    window.addEventListener(name, hold, true);
}

/** A page script that fails before hydration: reload once, then show LoadFailure (head-script.ts). */
function recoverFromScriptFailure(): void {
  let reloading = false;
  const showFailure = () => {
    const banner = document.getElementById(LOAD_FAILURE_ID);
    if (!banner) return;
    banner.hidden = false;
    const link = banner.querySelector("a");
    if (link) link.href = location.href;
  };
  const onError = (event: Event) => {
    const script = event.target as HTMLScriptElement | null;
    if (reloading || window.__bwHydrated || !script || script.tagName !== "SCRIPT" || !script.src) return;
    if (script.src.indexOf("/_next/") < 0) return;
    const now = Date.now();
    let last: string | number | null;
    try {
      last = sessionStorage.getItem(SCRIPT_RELOAD_KEY);
    } catch {
      last = now; // no storage, no loop guard: never reload
    }
    if (last === null || now - Number(last) > SCRIPT_RELOAD_WINDOW_MS || now < Number(last)) {
      try {
        sessionStorage.setItem(SCRIPT_RELOAD_KEY, String(now));
        reloading = true;
        location.reload();
        return;
      } catch {
        // storage refused the mark: show the failure instead of risking a reload loop
      }
    }
    if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", showFailure, { once: true });
    else showFailure();
  };
  window.addEventListener("error", onError, true);
}

for (const part of [applyTheme, reportTimeZone, holdEarlyTabClicks, recoverFromScriptFailure]) {
  try {
    part();
  } catch {
    // this part is off in this browser; the page still renders
  }
}
