import { Suspense } from "react";
import { notFound } from "next/navigation";
import Link from "@/components/ui/link";
import { getTranslations } from "next-intl/server";
import type { RunPageData } from "@/lib/queries/run";
import { DwErrorState } from "@/components/dw/dw-error-state";
import { RunDetail } from "@/components/run-detail/run-detail";
import { ID_HEADING } from "@/components/ui/id-heading";
import { runsListHref } from "@/lib/routes/route-for";

/**
 * How long the server render waits for describe + debug before it sends the page without them.
 * React reveals a Suspense boundary that streams in after the page's first frame no sooner than
 * 300 ms after that frame (react-dom's `$RC` batches reveals: `$RT + 300`), so a header streamed
 * behind the shell painted late even when its data was there early. Sent with the
 * shell instead, it paints with the first frame. Up to this wait that is never later than
 * streaming; a slower server gets the streamed page (title and "Loading…" first) as before.
 */
const RUN_HEADER_WAIT_MS = 250;

/** Server answers that mean the address names nothing: the page answers 404. */
const NOT_FOUND_REASONS = new Set<string>(["instance_not_found", "run_not_found"]);

/** The promise's value if it settles within `ms`, else null (the promise goes on). */
async function settledWithin<T>(promise: Promise<T>, ms: number): Promise<{ value: T } | null> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), ms);
  });
  try {
    return await Promise.race([promise.then((value) => ({ value })), late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Server half of the run detail. When the page's loader (lib/server/pages/loaders.ts `loadRunPage`)
 * answers within RUN_HEADER_WAIT_MS, the header and exceptions are part of the first HTML;
 * otherwise the shell streams at once (the browser fetches CSS and scripts meanwhile) and the run
 * streams in when the loader answers. The newest events stream behind the header either way.
 */
export async function RunDetailPage({
  namespace,
  workflowId,
  loaded,
}: {
  namespace: string;
  workflowId: string;
  loaded: Promise<RunPageData>;
}) {
  const [t, early] = await Promise.all([getTranslations("run"), settledWithin(loaded, RUN_HEADER_WAIT_MS)]);
  if (early) return <RunDetailContent namespace={namespace} workflowId={workflowId} loaded={early.value} />;
  return (
    <Suspense
      fallback={
        <div className="space-y-4" aria-busy="true" data-testid="run-detail-loading">
          <h1 className={ID_HEADING} title={workflowId}>
            {t("titleFor", { workflowId })}
          </h1>
          <p className="text-sm text-fg-muted">{t("loading")}</p>
        </div>
      }
    >
      <RunDetailContent namespace={namespace} workflowId={workflowId} loaded={loaded} />
    </Suspense>
  );
}

async function RunDetailContent({
  namespace,
  workflowId,
  loaded,
}: {
  namespace: string;
  workflowId: string;
  loaded: Promise<RunPageData> | RunPageData;
}) {
  const [{ describe, debug, error, latest }, t] = await Promise.all([loaded, getTranslations("run")]);
  // An unknown id is a 404 (the run routes' not-found.tsx draws it). Known within RUN_HEADER_WAIT_MS,
  // the status goes out with the page; a later answer has streamed a 200 already, and the same state shows.
  if (!describe && error && NOT_FOUND_REASONS.has(error.reason)) notFound();
  if (!describe) {
    return (
      <div className="space-y-4">
        <h1 className={ID_HEADING} title={workflowId}>
          {t("titleFor", { workflowId })}
        </h1>
        {error ? <DwErrorState error={error} /> : null}
        <Link href={runsListHref(namespace)} className="inline-block text-sm text-accent hover:underline">
          ← {t("backToRuns")}
        </Link>
      </div>
    );
  }
  return (
    <RunDetail
      namespace={namespace}
      workflowId={workflowId}
      runId={describe.run_id}
      initialDescribe={describe}
      initialDebug={debug}
      initialError={error}
      initialLatest={latest}
    />
  );
}
