import { Suspense } from "react";
import Link from "@/components/ui/link";
import { getTranslations } from "next-intl/server";
import type { RunPageData } from "@/lib/queries/run";
import { DwErrorState } from "@/components/ui/dw-error-state";
import { RunDetail } from "@/components/run-detail/run-detail";
import { ID_HEADING } from "@/components/ui/id-heading";
import { runsListHref } from "@/lib/routes/route-for";

/**
 * Server half of the run detail. The shell streams at once (so the browser fetches CSS and scripts
 * while the server asks the DW server), then the run streams in when the page's loader
 * (lib/server/loaders.ts `loadRunPage`) answers.
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
  const t = await getTranslations("run");
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
  loaded: Promise<RunPageData>;
}) {
  const [{ describe, debug, error, latest }, t] = await Promise.all([loaded, getTranslations("run")]);
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
