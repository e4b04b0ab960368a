/** The names the head script (lib/preferences/head-script.ts) shares with the page. */

/** The element `LoadFailure` renders (hidden) and the head script shows. */
export const LOAD_FAILURE_ID = "bw-load-failed";
/** sessionStorage key: when the page last reloaded itself after a failed script. */
export const SCRIPT_RELOAD_KEY = "bw-script-reload";
/** Within this long of that reload, a second failure is shown instead of reloading again. */
export const SCRIPT_RELOAD_WINDOW_MS = 60_000;
