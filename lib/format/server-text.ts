import { formatDateTime } from "@/lib/format/time";

/**
 * ISO 8601 instants with a zone, as the server writes them into prose ("deadline expired at
 * 2026-12-01T20:01:37.621000Z"): date, `T`, time with optional fraction, then `Z` or an offset.
 * Instants without a zone are left alone: which zone they meant is unknown.
 */
const INSTANT = /\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})/g;

export type ServerTextPart = { kind: "text"; text: string } | { kind: "instant"; text: string; iso: string };

/** Splits server-written text into plain runs and instants, keeping every character. */
export function serverTextParts(text: string): ServerTextPart[] {
  const parts: ServerTextPart[] = [];
  let last = 0;
  for (const match of text.matchAll(INSTANT)) {
    const at = match.index;
    if (Number.isNaN(Date.parse(normalise(match[0])))) continue;
    if (at > last) parts.push({ kind: "text", text: text.slice(last, at) });
    parts.push({ kind: "instant", text: match[0], iso: match[0] });
    last = at + match[0].length;
  }
  if (last < text.length) parts.push({ kind: "text", text: text.slice(last) });
  return parts;
}

/** Date.parse takes at most milliseconds and a colon in the offset. */
function normalise(iso: string): string {
  return iso.replace(/(\.\d{3})\d+/, "$1").replace(/([+-]\d{2})(\d{2})$/, "$1:$2");
}

/** The text with each instant in the operator's zone and locale; everything else verbatim. */
export function formatServerText(text: string, options: { locale: string; timeZone: string }): string {
  return serverTextParts(text)
    .map((part) => (part.kind === "text" ? part.text : formatDateTime(normalise(part.iso), options)))
    .join("");
}
