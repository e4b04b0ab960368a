/**
 * Which of the build's static files get compressed copies and what the copies are called: written
 * by scripts/compress-static.ts after `next build`, served by lib/server/edge/static-assets.ts
 * (decision 0037). Plain data, so the build script (plain Node) and the server share it.
 */

/** The file types that get copies, with the Content-Type they are served with (Next's own). */
export const COPIED_TYPES: Readonly<Record<string, string>> = {
  ".js": "application/javascript; charset=UTF-8",
  ".css": "text/css; charset=UTF-8",
};

/** The copies' names: the file's name plus this, by encoding. */
export const COPY_SUFFIX = { br: ".br", gzip: ".gz" } as const;
