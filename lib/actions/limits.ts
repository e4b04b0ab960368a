/**
 * The limits both halves of an action descriptor enforce: the form (forms.ts, in the browser, for
 * words before a round trip) and the request schema (schemas.ts, on the server, which decides).
 * Zod-free, so the browser can import it.
 */

/** Workflow ids as the server accepts them (server-api §2.8). */
export const WORKFLOW_ID = /^[a-zA-Z0-9._:-]+$/;
export const REASON_MAX = 1000;
export const SIGNAL_NAME_MAX = 256;
export const NEW_WORKFLOW_ID_MAX = 128;
/** Request cancellation's cleanup bound in seconds, as the server accepts it (docs/contract.md). */
export const CLEANUP_TIMEOUT_MIN = 1;
export const CLEANUP_TIMEOUT_MAX = 3600;
/** What the server takes when the bound is left out; the dialog starts with it. */
export const CLEANUP_TIMEOUT_DEFAULT = 600;
