import { TIME_ZONE_COOKIE } from "@/lib/preferences";

/**
 * Inline script that runs in <head> before the body paints:
 *  - applies the theme (the server renders the operator's choice as data-theme-preference; "system"
 *    needs the browser's prefers-color-scheme, which only the browser knows) so there is no flash,
 *    and re-applies it whenever the OS scheme changes — from the first moment, not after hydration;
 *  - reports the browser's IANA time zone in a cookie so the server can render local times.
 * Kept dependency-free and tiny; errors are swallowed so a locked-down browser still renders.
 */
export const HEAD_SCRIPT = `(function(){try{var d=document.documentElement;var m=window.matchMedia("(prefers-color-scheme: dark)");var a=function(){var p=d.getAttribute("data-theme-preference");var k=p==="dark"||(p!=="light"&&m.matches);d.classList.toggle("dark",k);d.style.colorScheme=k?"dark":"light"};a();m.addEventListener("change",a);var z=Intl.DateTimeFormat().resolvedOptions().timeZone;var c=${JSON.stringify(`${TIME_ZONE_COOKIE}=`)}+encodeURIComponent(z);if(z&&document.cookie.split("; ").indexOf(c)<0){document.cookie=c+"; Path=/; Max-Age=31536000; SameSite=Lax"}}catch(e){}})();`;
