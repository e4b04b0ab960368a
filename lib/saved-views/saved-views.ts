/**
 * Saved views of the runs list, the Failures view and the Schedules list (issue 45 point 2). A view
 * is the screen's URL state — its filters, plus `density` and `hide` (the columns left out) — so
 * applying one is opening a link and sharing one is copying it. Saved views are kept in the
 * browser's localStorage, one entry per signed-in person, and are not tied to a namespace: a view
 * "failed in the last hour" means the same in every namespace. Pure: no React, no DOM; storage is
 * passed in, so a full or refusing store is an answer, not a crash.
 */

export const VIEW_SCREENS = ["runs", "failures", "schedules"] as const;
export type ViewScreen = (typeof VIEW_SCREENS)[number];

export const DENSITIES = ["dense", "normal"] as const;
export type Density = (typeof DENSITIES)[number];

/**
 * The URL keys each screen's view keeps; paging (`cursor`, `trail`, a page number) is left out, so a
 * view opens at the first page. Keys are the screens' own (run-list-url-state.ts, failures-screen.tsx,
 * schedules-screen.tsx), plus `density` and `hide`.
 */
export const VIEW_KEYS: Readonly<Record<ViewScreen, readonly string[]>> = {
  runs: ["status", "type", "q", "range", "queue", "size", "density", "hide"],
  failures: ["window", "cause"],
  schedules: ["state", "type", "id", "show", "density", "hide"],
};

/** A view the console ships: filters the real server's list can answer (see BUILT_IN_VIEWS). */
export interface BuiltInView {
  id: string;
  screen: ViewScreen;
  query: string;
}

/**
 * "Failed in the last hour": the runs list's `status=failed` bucket with the `range=1h` start window
 * (both filters the list already sends to the server). "Non-retryable failures today": the Failures
 * view's last 24 hours narrowed to the non_retryable cause. "Stuck" is not a list filter the server
 * has — it takes the Attention scan — so the runs list links to Attention instead of pretending.
 */
export const BUILT_IN_VIEWS: readonly BuiltInView[] = [
  { id: "failedLastHour", screen: "runs", query: "status=failed&range=1h" },
  { id: "nonRetryableToday", screen: "failures", query: "window=24h&cause=non_retryable" },
];

export interface SavedView {
  id: string;
  name: string;
  screen: ViewScreen;
  /** The canonical query string, without `?`. */
  query: string;
}

export const MAX_NAME_CHARS = 80;
export const MAX_VIEWS = 50;
const STORAGE_PREFIX = "bw-views:v1:";

/** One entry per person: views are personal, the same browser may be shared on a night shift. */
export function storageKey(person: string | null): string {
  return `${STORAGE_PREFIX}${person ?? "~"}`;
}

/** The screen's view keys from a URL, in a fixed order, empty values dropped: equal views compare equal. */
export function viewQuery(screen: ViewScreen, params: URLSearchParams): string {
  const out = new URLSearchParams();
  for (const key of VIEW_KEYS[screen]) {
    const value = params.get(key)?.trim();
    if (value) out.set(key, value);
  }
  return out.toString();
}

/** The density a URL asks for (`density=normal`), dense otherwise: the console's lists are dense. */
export function parseDensity(value: string | null | undefined): Density {
  return value === "normal" ? "normal" : "dense";
}

/** Columns left out (`hide=a,b`), only ids the table has, so a stale link never hides a new column by accident. */
export function parseHidden(value: string | null | undefined, known: readonly string[]): Set<string> {
  if (!value) return new Set();
  return new Set(value.split(",").filter((id) => known.includes(id)));
}

// Bidirectional overrides and isolates (U+202A–U+202E, U+2066–U+2069) and other invisible format
// characters could make a name render as something else; control characters could break a line.
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/g;

/**
 * A name as it is kept: unsafe characters out, spaces collapsed, cut at {@link MAX_NAME_CHARS}
 * code points (never inside a surrogate pair). HTML in a name is text: React escapes it.
 */
export function cleanName(name: string): string {
  const clean = name.replace(UNSAFE, "").replace(/\s+/g, " ").trim();
  return Array.from(clean).slice(0, MAX_NAME_CHARS).join("").trim();
}

export type SaveRefusal = "empty" | "tooMany";

/**
 * The views after saving the current state under a name: a view of the same screen with the same
 * name (any case) is replaced, so saving again updates it.
 */
export function saveView(
  views: readonly SavedView[],
  input: { name: string; screen: ViewScreen; query: string },
  newId: () => string,
): { views: SavedView[]; saved: SavedView } | { refused: SaveRefusal } {
  const name = cleanName(input.name);
  if (name === "") return { refused: "empty" };
  const same = (view: SavedView) => view.screen === input.screen && view.name.toLowerCase() === name.toLowerCase();
  const existing = views.find(same);
  if (!existing && views.length >= MAX_VIEWS) return { refused: "tooMany" };
  const saved: SavedView = { id: existing?.id ?? newId(), name, screen: input.screen, query: input.query };
  return { views: existing ? views.map((view) => (same(view) ? saved : view)) : [...views, saved], saved };
}

export function removeView(views: readonly SavedView[], id: string): SavedView[] {
  return views.filter((view) => view.id !== id);
}

/** A screen's views, by name in the operator's language. */
export function viewsFor(views: readonly SavedView[], screen: ViewScreen, locale: string): SavedView[] {
  const collator = new Intl.Collator(locale, { sensitivity: "base", numeric: true });
  return views.filter((view) => view.screen === screen).sort((a, b) => collator.compare(a.name, b.name));
}

function isSavedView(value: unknown): value is SavedView {
  if (typeof value !== "object" || value === null) return false;
  const view = value as Record<string, unknown>;
  return (
    typeof view.id === "string" &&
    view.id !== "" &&
    typeof view.name === "string" &&
    typeof view.query === "string" &&
    (VIEW_SCREENS as readonly unknown[]).includes(view.screen)
  );
}

/**
 * What a stored entry holds. Corrupt text or a foreign shape reads as no views and `corrupt`, so the
 * screen can say so; single bad entries are dropped and the rest kept; names and queries are cleaned
 * again (another tab, an older console or a hand edit may have written them).
 */
export function readViews(raw: string | null): { views: SavedView[]; corrupt: boolean } {
  if (raw === null) return { views: [], corrupt: false };
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return { views: [], corrupt: true };
  }
  const list = (parsed as { views?: unknown } | null)?.views;
  if (!Array.isArray(list)) return { views: [], corrupt: true };
  const views: SavedView[] = [];
  const seen = new Set<string>();
  for (const entry of list) {
    if (!isSavedView(entry) || seen.has(entry.id)) continue;
    const name = cleanName(entry.name);
    if (name === "") continue;
    seen.add(entry.id);
    const query = viewQuery(entry.screen, new URLSearchParams(entry.query));
    views.push({ id: entry.id, name, screen: entry.screen, query });
    if (views.length >= MAX_VIEWS) break;
  }
  return { views, corrupt: views.length < list.length };
}

export function writeViews(views: readonly SavedView[]): string {
  return JSON.stringify({ views });
}

/** The part of Storage used here (localStorage in the browser, a map in tests). */
export interface ViewStore {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
}

/** Stores views; a full store (QuotaExceededError) or one the browser refuses is `false`, not a throw. */
export function storeViews(store: ViewStore | null, key: string, views: readonly SavedView[]): boolean {
  if (!store) return false;
  try {
    store.setItem(key, writeViews(views));
    return true;
  } catch {
    return false;
  }
}

/** Reads views; a store the browser refuses (private mode, blocked storage) reads as none. */
export function loadViews(store: ViewStore | null, key: string): { views: SavedView[]; corrupt: boolean } {
  if (!store) return { views: [], corrupt: false };
  try {
    return readViews(store.getItem(key));
  } catch {
    return { views: [], corrupt: false };
  }
}
