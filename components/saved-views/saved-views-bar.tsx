"use client";

import { useId, useMemo, useState, useSyncExternalStore } from "react";
import type { FormEvent } from "react";
import { useSearchParams } from "next/navigation";
import { useLocale, useTranslations } from "next-intl";
import Link from "@/components/ui/link";
import { Button } from "@/components/ui/button";
import { Dialog } from "@/components/ui/dialog";
import { Field, inputClass } from "@/components/ui/field";
import { useViewOwner } from "@/components/shell/view-owner";
import type { SaveRefusal, ViewScreen } from "@/lib/saved-views/saved-views";
import {
  BUILT_IN_VIEWS,
  MAX_NAME_CHARS,
  readViews,
  removeView,
  saveView,
  storageKey,
  storeViews,
  viewQuery,
  viewsFor,
} from "@/lib/saved-views/saved-views";

const CHANGED = "bw-saved-views";

function browserStore(): Storage | null {
  try {
    return window.localStorage;
  } catch {
    return null;
  }
}

/** The stored text, read in the browser only (the server renders no views), kept current across tabs. */
function useStoredText(key: string): string | null {
  return useSyncExternalStore(
    (notify) => {
      window.addEventListener("storage", notify);
      window.addEventListener(CHANGED, notify);
      return () => {
        window.removeEventListener("storage", notify);
        window.removeEventListener(CHANGED, notify);
      };
    },
    () => {
      try {
        return browserStore()?.getItem(key) ?? null;
      } catch {
        return null;
      }
    },
    () => null,
  );
}

/** crypto.randomUUID needs a secure context; a console served over plain HTTP still saves views. */
function newViewId(): string {
  return typeof crypto.randomUUID === "function"
    ? crypto.randomUUID()
    : `${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;
}

const BUILT_IN = "b:";
const SAVED = "s:";

/**
 * A screen's saved views (issue 45 point 2): pick a built-in or saved view, save the current filters,
 * columns and density under a name, delete one, copy the view's link. A view is the screen's URL
 * state (lib/saved-views/saved-views.ts), so picking one opens its link.
 */
export function SavedViewsBar({ screen, stuckHref }: { screen: ViewScreen; stuckHref?: string }) {
  const t = useTranslations("savedViews");
  const locale = useLocale();
  const params = useSearchParams();
  const owner = useViewOwner();
  const key = storageKey(owner);
  const raw = useStoredText(key);
  const stored = useMemo(() => readViews(raw), [raw]);
  const mine = useMemo(() => viewsFor(stored.views, screen, locale), [stored.views, screen, locale]);
  const builtIns = BUILT_IN_VIEWS.filter((view) => view.screen === screen);
  const current = viewQuery(screen, params);
  const builtInMatch = builtIns.find((view) => view.query === current);
  const savedMatch = builtInMatch ? undefined : mine.find((view) => view.query === current);
  const selected = builtInMatch ? `${BUILT_IN}${builtInMatch.id}` : savedMatch ? `${SAVED}${savedMatch.id}` : "";
  const selectedSaved = savedMatch;

  const [saving, setSaving] = useState(false);
  const [name, setName] = useState("");
  const [refusal, setRefusal] = useState<SaveRefusal | "full" | null>(null);
  const [note, setNote] = useState<string | null>(null);
  const headingId = useId();
  const selectId = useId();

  // The native history API, as the lists' own filters do: Next keeps useSearchParams in step, the
  // screen refetches through its client query, and Back returns to the filters before.
  const open = (query: string) =>
    window.history.pushState(null, "", `${window.location.pathname}${query ? `?${query}` : ""}`);
  const pick = (value: string) => {
    const view = value.startsWith(BUILT_IN)
      ? builtIns.find((entry) => `${BUILT_IN}${entry.id}` === value)
      : mine.find((entry) => `${SAVED}${entry.id}` === value);
    // "Current filters" is where the list already is: nothing to open.
    if (view) open(view.query);
  };
  const write = (views: Parameters<typeof storeViews>[2]) => {
    const store = browserStore();
    // What could not be read is kept beside the views, not overwritten: "set aside", as the note says.
    if (stored.corrupt && raw !== null) {
      try {
        store?.setItem(`${key}:unreadable`, raw);
      } catch {
        // a full store: the save below says so
      }
    }
    const ok = storeViews(store, key, views);
    window.dispatchEvent(new Event(CHANGED));
    return ok;
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const result = saveView(stored.views, { name, screen, query: current }, newViewId);
    if ("refused" in result) return setRefusal(result.refused);
    if (!write(result.views)) return setRefusal("full");
    setSaving(false);
    setNote(t("saved", { name: result.saved.name }));
  };
  const remove = () => {
    if (!selectedSaved) return;
    setNote(write(removeView(stored.views, selectedSaved.id)) ? t("deleted", { name: selectedSaved.name }) : t("full"));
  };
  const copy = async () => {
    const link = `${window.location.origin}${window.location.pathname}${current ? `?${current}` : ""}`;
    try {
      await navigator.clipboard.writeText(link);
      setNote(t("copied"));
    } catch {
      setNote(t("copyFailed", { link }));
    }
  };

  return (
    <div className="flex flex-wrap items-end gap-2 text-sm" data-testid="saved-views" data-screen={screen}>
      <div className="flex flex-col gap-1">
        <label htmlFor={selectId} className="text-xs font-medium text-fg-muted">
          {t("label")}
        </label>
        <select
          id={selectId}
          className={`${inputClass} max-w-80`}
          value={selected}
          onChange={(event) => pick(event.target.value)}
          data-testid="saved-views-select"
        >
          <option value="">{t("current")}</option>
          {builtIns.length > 0 ? (
            <optgroup label={t("builtIn")}>
              {builtIns.map((view) => (
                <option key={view.id} value={`${BUILT_IN}${view.id}`}>
                  {t(`builtInName.${view.id as "failedLastHour"}`)}
                </option>
              ))}
            </optgroup>
          ) : null}
          {mine.length > 0 ? (
            <optgroup label={t("mine")}>
              {mine.map((view) => (
                <option key={view.id} value={`${SAVED}${view.id}`} dir="auto">
                  {view.name}
                </option>
              ))}
            </optgroup>
          ) : null}
        </select>
      </div>
      <Button
        size="sm"
        onClick={() => {
          setName(selectedSaved?.name ?? "");
          setRefusal(null);
          setSaving(true);
        }}
      >
        {t("save")}
      </Button>
      {selectedSaved ? (
        <Button size="sm" variant="ghost" onClick={remove} data-testid="saved-views-delete">
          {t("delete")}
        </Button>
      ) : null}
      <Button size="sm" variant="ghost" onClick={() => void copy()}>
        {t("copyLink")}
      </Button>
      {stuckHref ? (
        <Link href={stuckHref} className="self-end py-1.5 text-accent hover:underline" data-testid="saved-views-stuck">
          {t("stuck")}
        </Link>
      ) : null}
      <p role="status" className="min-w-0 self-end py-2 text-xs break-all text-fg-muted" data-testid="saved-views-note">
        {stored.corrupt ? t("corrupt") : null} {note ? <bdi>{note}</bdi> : null}
      </p>
      <Dialog open={saving} onClose={() => setSaving(false)} labelledBy={headingId} testId="save-view-dialog">
        <form onSubmit={submit} className="space-y-4 p-5">
          <h2 id={headingId} className="text-base font-semibold">
            {t("saveTitle")}
          </h2>
          <Field label={t("name")} hint={t("nameHint")} error={refusal ? t(`refused.${refusal}`) : undefined}>
            <input
              className={inputClass}
              value={name}
              maxLength={MAX_NAME_CHARS * 2}
              dir="auto"
              autoFocus
              aria-invalid={refusal !== null}
              onChange={(event) => {
                setName(event.target.value);
                setRefusal(null);
              }}
            />
          </Field>
          <div className="flex justify-end gap-2">
            <Button size="sm" variant="ghost" onClick={() => setSaving(false)}>
              {t("cancel")}
            </Button>
            <Button size="sm" variant="primary" type="submit">
              {t("saveConfirm")}
            </Button>
          </div>
        </form>
      </Dialog>
    </div>
  );
}
