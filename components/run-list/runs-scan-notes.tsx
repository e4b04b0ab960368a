"use client";

import { useTranslations } from "next-intl";
import type { RunsView } from "@/lib/queries/runs-scan";
import { RUNS_SCAN_LIMIT, TYPE_SAMPLE } from "@/lib/queries/runs-scan";
import { buttonClass } from "@/components/ui/button";

/**
 * What the console did beyond the server's page, said where the operator reads the list: a walk's
 * reach and its limit, a search answered by run id, a typed type read as the exact types it stands for.
 */
export function RunsScanNotes({
  view,
  shown,
  search,
  typed,
}: {
  view: RunsView;
  shown: number;
  search: string;
  typed: string;
}) {
  const t = useTranslations("runs");
  const notes: { id: string; text: string; warn?: boolean }[] = [];
  if (view.runIdSearch) notes.push({ id: "run-id", text: t("scan.runId", { term: search }) });
  if (view.resolvedTypes?.length === 0)
    notes.push({ id: "no-type", text: t("scan.noType", { typed, sample: TYPE_SAMPLE }) });
  else if (view.resolvedTypes)
    notes.push({ id: "types", text: t("scan.types", { typed, types: view.resolvedTypes.join(", ") }) });
  if (view.mode === "scan")
    notes.push({ id: "scanned", text: t("scan.scanned", { count: shown, scanned: view.scanned }) });
  if (view.capped) notes.push({ id: "capped", text: t("scan.capped", { limit: RUNS_SCAN_LIMIT }), warn: true });
  if (notes.length === 0) return null;
  return (
    <ul className="space-y-1 text-xs text-fg-muted" data-testid="runs-scan-notes">
      {notes.map((note) => (
        <li key={note.id} data-note={note.id} className={note.warn ? "font-medium text-warn" : undefined}>
          {note.text}
        </li>
      ))}
    </ul>
  );
}

/** In place of the rows when the page link did not lead to the page it named, with the way back. */
export function RunsCursorProblem({
  problem,
  firstPageHref,
  onFirstPage,
}: {
  problem: NonNullable<RunsView["cursorProblem"]>;
  /** A real link (it can be copied or opened in a new tab); a plain click stays in the page. */
  firstPageHref: string;
  onFirstPage: () => void;
}) {
  const t = useTranslations("runs");
  return (
    <section
      data-testid="runs-cursor-problem"
      data-problem={problem}
      role="alert"
      className="rounded-lg border border-warn/50 bg-panel px-6 py-10 text-center"
    >
      <h2 className="text-base font-semibold text-fg">{t(`cursor.${problem}.title`)}</h2>
      <p className="mt-2 text-sm text-fg-muted">{t(`cursor.${problem}.body`)}</p>
      <a
        href={firstPageHref}
        className={buttonClass({ className: "mt-4" })}
        data-testid="runs-first-page"
        onClick={(event) => {
          if (event.metaKey || event.ctrlKey || event.shiftKey || event.button !== 0) return;
          event.preventDefault();
          onFirstPage();
        }}
      >
        {t("cursor.back")}
      </a>
    </section>
  );
}
