/**
 * Runtime guard for modules that hold secrets. The `server-only` package is not installed, so a module
 * under lib/server calls this at load: if a client component ever imports it, the bundle fails loudly
 * in the browser instead of quietly shipping server code.
 */
export function assertServerOnly(moduleName: string): void {
  if (typeof window !== "undefined") {
    throw new Error(`${moduleName} is server-only and must not be imported from client code`);
  }
}
