/**
 * The real controller's namespace rules (NamespaceController.php@11d35b7 `store` / `update`) with no
 * zod, so the browser's form checks and lib/views read them without a schema in the bundle.
 */
export const NAMESPACE_NAME = /^[a-zA-Z0-9._-]+$/;
export const RETENTION_MIN = 1;
export const RETENTION_MAX = 365;
