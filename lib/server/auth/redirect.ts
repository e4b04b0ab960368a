import "server-only";
/**
 * Where to go after signing in: only a path on this console. `//host` and `/\host` are
 * protocol-relative to browsers, so they would send a fresh session cookie's owner elsewhere.
 * The result goes into a `Location` header, which carries ASCII only: anything else (`/中文`, a
 * space) is percent-encoded, or `Location` would throw and the sign-in answer 500 without a cookie.
 */
export function safeNextPath(value: unknown): string {
  if (typeof value !== "string" || value.length > 2048) return "/";
  if (!value.startsWith("/") || value.startsWith("//") || value.startsWith("/\\")) return "/";
  if (/[\u0000-\u001f\u007f]/.test(value)) return "/";
  if (value === "/login" || value.startsWith("/login?") || value.startsWith("/api/")) return "/";
  try {
    // Per code point; a lone surrogate cannot be encoded and makes the whole value unusable.
    return value.replace(/[^\x21-\x7e]/gu, (char) => encodeURIComponent(char));
  } catch {
    return "/";
  }
}
