// @vitest-environment jsdom
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  HEAD_SCRIPT,
  LOAD_FAILURE_ID,
  SCRIPT_RELOAD_KEY,
  SCRIPT_RELOAD_WINDOW_MS,
} from "@/lib/preferences/head-script";

/** The window listeners each run of the script added: removed after each test, as a page runs it once. */
const added: [string, EventListenerOrEventListenerObject, boolean | AddEventListenerOptions | undefined][] = [];

function runHeadScript(): void {
  const own = Object.getOwnPropertyDescriptor(window, "addEventListener");
  // jsdom's own method (the global EventTarget may be Node's, which jsdom's window is not).
  const original = window.addEventListener;
  window.addEventListener = (
    type: string,
    listener: EventListenerOrEventListenerObject,
    options?: boolean | AddEventListenerOptions,
  ) => {
    added.push([type, listener, options]);
    original.call(window, type, listener, options);
  };
  try {
    new Function(HEAD_SCRIPT)();
  } finally {
    if (own) Object.defineProperty(window, "addEventListener", own);
    else delete (window as { addEventListener?: unknown }).addEventListener;
  }
}

afterEach(() => {
  for (const [type, listener, options] of added.splice(0)) window.removeEventListener(type, listener, options);
  delete window.__bwHydrated;
  sessionStorage.clear();
  document.body.innerHTML = "";
  vi.useRealTimers();
  vi.restoreAllMocks();
  document.cookie = "bw-tz=; Max-Age=0; Path=/";
});

describe("head script", () => {
  it("applies the chosen theme, and for 'system' the OS scheme now and whenever it changes", () => {
    const root = document.documentElement;
    let onChange: () => void = () => undefined;
    const scheme = {
      matches: true,
      addEventListener: (type: string, listener: () => void) => void (type === "change" && (onChange = listener)),
    };
    const matchMedia = vi.fn(() => scheme);
    vi.stubGlobal("matchMedia", matchMedia);
    try {
      root.setAttribute("data-theme-preference", "light");
      runHeadScript();
      expect(matchMedia).toHaveBeenCalledWith("(prefers-color-scheme: dark)");
      expect([root.classList.contains("dark"), root.style.colorScheme]).toEqual([false, "light"]);
      root.setAttribute("data-theme-preference", "system");
      onChange();
      expect([root.classList.contains("dark"), root.style.colorScheme]).toEqual([true, "dark"]);
      scheme.matches = false;
      onChange();
      expect([root.classList.contains("dark"), root.style.colorScheme]).toEqual([false, "light"]);
    } finally {
      vi.unstubAllGlobals();
      root.removeAttribute("data-theme-preference");
      root.classList.remove("dark");
      root.style.colorScheme = "";
    }
  });

  it("reports the time zone only after the HTML is parsed, not before the first paint", () => {
    vi.useFakeTimers();
    vi.spyOn(document, "readyState", "get").mockReturnValue("loading");
    const intl = vi.spyOn(Intl, "DateTimeFormat");
    runHeadScript();
    expect(intl).not.toHaveBeenCalled();
    expect(document.cookie).not.toContain("bw-tz=");
    document.dispatchEvent(new Event("DOMContentLoaded"));
    vi.runAllTimers();
    expect(intl).toHaveBeenCalled();
    expect(document.cookie).toContain("bw-tz=");
  });

  describe("a page script that fails to load before hydration", () => {
    function page(): { failScript: (src: string) => void; banner: HTMLElement } {
      document.body.innerHTML = `<div id="${LOAD_FAILURE_ID}" hidden><a href="">Reload</a></div>`;
      runHeadScript();
      return {
        banner: document.getElementById(LOAD_FAILURE_ID)!,
        failScript(src: string) {
          const script = document.createElement("script");
          script.setAttribute("src", src);
          document.head.append(script);
          script.dispatchEvent(new Event("error"));
        },
      };
    }

    it("reloads the page once (remembering when), without showing anything", () => {
      const { failScript, banner } = page();
      const before = Date.now();
      failScript("/_next/static/chunks/gone.js");
      expect(Number(sessionStorage.getItem(SCRIPT_RELOAD_KEY))).toBeGreaterThanOrEqual(before);
      expect(banner.hidden).toBe(true);
    });

    it("shows the alert, linking to this page, when it fails again soon after that reload", () => {
      sessionStorage.setItem(SCRIPT_RELOAD_KEY, String(Date.now() - 5_000));
      const { failScript, banner } = page();
      failScript("/_next/static/chunks/gone.js");
      expect(banner.hidden).toBe(false);
      expect(banner.querySelector("a")!.href).toBe(location.href);
    });

    it("reloads again when the last reload was long ago", () => {
      const long = Date.now() - SCRIPT_RELOAD_WINDOW_MS - 1_000;
      sessionStorage.setItem(SCRIPT_RELOAD_KEY, String(long));
      const { failScript, banner } = page();
      failScript("/_next/static/chunks/gone.js");
      expect(Number(sessionStorage.getItem(SCRIPT_RELOAD_KEY))).toBeGreaterThan(long);
      expect(banner.hidden).toBe(true);
    });

    it("shows the alert instead of reloading where sessionStorage is blocked (no loop guard)", () => {
      vi.spyOn(Storage.prototype, "getItem").mockImplementation(() => {
        throw new DOMException("blocked", "SecurityError");
      });
      const { failScript, banner } = page();
      failScript("/_next/static/chunks/gone.js");
      expect(banner.hidden).toBe(false);
    });

    it("leaves other scripts, and any script once the page is hydrated, to the page", () => {
      const { failScript, banner } = page();
      failScript("https://cdn.example/widget.js");
      expect(sessionStorage.getItem(SCRIPT_RELOAD_KEY)).toBeNull();
      window.__bwHydrated = true;
      failScript("/_next/static/chunks/lazy-tab.js");
      expect(sessionStorage.getItem(SCRIPT_RELOAD_KEY)).toBeNull();
      expect(banner.hidden).toBe(true);
    });
  });
});
