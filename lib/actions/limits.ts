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
