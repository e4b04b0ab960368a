/**
 * Where to go after signing in: only a path on this console. `//host` and `/\host` are
 * protocol-relative to browsers, so they would send a fresh session cookie's owner elsewhere.
 */
export function safeNextPath(value: unknown): string {
  if (typeof value !== "string" || value.length > 2048) return "/";
  if (!value.startsWith("/") || value.startsWith("//") || value.startsWith("/\\")) return "/";
  if (/[\u0000-\u001f]/.test(value)) return "/";
  if (value === "/login" || value.startsWith("/login?") || value.startsWith("/api/")) return "/";
  return value;
}
